#!/usr/bin/env python3
"""PyTorch on one thread, on the workloads of bench/run.mjs (W1, W2, W3).

Reads one JSON object on stdin: {"data": {...as bench/lib/data.mjs makes it,
typed arrays as lists...}, "tasks": ["w1", "w3_undef", ...], "reps": N,
"warmup": N}. Writes one JSON object on stdout: {"available": true,
"version": ..., "tasks": {task: {"times": [ms...], "loss": x, "grads":
[[...]], "calls": n}}} — or {"available": false, "why": ...} when torch
cannot be imported, so `npm run bench` still runs without it.

The steps are written as the JS peers write them (bench/lib/data.mjs's
w1Loss, bench/peers/hookgrad.mjs): every weight of W1 a 0-d tensor, each
W3 intermediate with a tensor hook. Short steps are repeated inside a sample
(to >= ~40 ms, at most 20x), as the runner does for the JS peers.
"""
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")  # torch without numpy warns on import


def main():
    req = json.load(sys.stdin)
    try:
        import torch
    except Exception as e:  # noqa: BLE001 — any import failure means "no peer"
        json.dump({"available": False, "why": f"torch not importable: {e}"}, sys.stdout)
        return
    torch.set_num_threads(1)
    d = req["data"]
    out = {"available": True, "version": torch.__version__, "threads": torch.get_num_threads(), "tasks": {}}
    for task in req["tasks"]:
        w = task.split("_")[0]
        variant = task.split("_")[1] if "_" in task else None
        make = {"w1": w1, "w2": w2, "w3": w3}.get(w)
        if make is None:
            continue
        step = make(torch, d[w], variant)
        r = step()  # the checked run
        for _ in range(req.get("warmup", 1)):
            step()
        # Calibrate the repeats per sample on one more run.
        s = time.perf_counter()
        step()
        one = (time.perf_counter() - s) * 1000
        inner = max(1, min(20, -(-40 // max(one, 0.1))))
        times = []
        for _ in range(req.get("reps", 0)):
            s = time.perf_counter()
            for _ in range(int(inner)):
                step()
            times.append((time.perf_counter() - s) * 1000 / inner)
        r["times"] = times
        out["tasks"][task] = r
    json.dump(out, sys.stdout)


def w1(torch, d, _variant):
    layers = []
    for l in d["layers"]:
        nin, nout, p = l["nin"], l["nout"], l["params"]
        neurons = []
        for o in range(nout):
            base = o * (nin + 1)
            ws = [torch.tensor(p[base + i], requires_grad=True) for i in range(nin)]
            b = torch.tensor(p[base + nin], requires_grad=True)
            neurons.append((ws, b))
        layers.append(neurons)
    params = [t for layer in layers for ws, b in layer for t in (*ws, b)]
    xs, ys, samples = d["xs"], d["ys"], d["samples"]

    def step():
        total = None
        for s in range(samples):
            x = [xs[s * 2], xs[s * 2 + 1]]
            for li, neurons in enumerate(layers):
                last = li == len(layers) - 1
                nx = []
                for ws, b in neurons:
                    act = b
                    for i in range(len(ws)):
                        act = act + ws[i] * x[i]
                    nx.append(act if last else act.tanh())
                x = nx
            diff = x[0] - ys[s]
            sq = diff * diff
            total = sq if total is None else total + sq
        loss = total * (1 / samples)
        for t in params:
            t.grad = None
        loss.backward()
        grads = [t.grad.item() for t in params]
        return {"loss": loss.item(), "grads": [grads]}

    return step


def w2(torch, d, _variant):
    batch, nin, nhid, nout = d["batch"], d["nin"], d["nhid"], d["nout"]
    T = lambda v, shape, rg=False: torch.tensor(v, dtype=torch.float32).reshape(shape).requires_grad_(rg)
    x, y = T(d["x"], [batch, nin]), T(d["y"], [batch, nout])
    p = [T(d["w1"], [nin, nhid], True), T(d["b1"], [nhid], True), T(d["w2"], [nhid, nout], True), T(d["b2"], [nout], True)]

    def step():
        w1_, b1, w2_, b2 = p
        for t in p:
            t.grad = None
        o = (x @ w1_ + b1).relu() @ w2_ + b2
        diff = o - y
        loss = (diff * diff).mean()
        loss.backward()
        return {"loss": loss.item(), "grads": [t.grad.reshape(-1).tolist() for t in p]}

    return step


def w3(torch, d, variant):
    x = torch.tensor(d["x"], dtype=torch.float32, requires_grad=True)
    ops, mul, add = d["ops"], d["MUL"], d["ADD"]

    def step():
        calls = [0]

        def undef(g):
            calls[0] += 1

        def mul1(g):
            calls[0] += 1
            return g.mul(1)

        hook = {"undef": undef, "mul1": mul1}.get(variant)
        x.grad = None
        y = x
        for i in range(ops):
            y = y.mul(mul) if i % 2 == 0 else y.add(add)
            if hook:
                y.register_hook(hook)
        loss = y.sum()
        loss.backward()
        return {"loss": loss.item(), "grads": [x.grad.tolist()], "calls": calls[0]}

    return step


if __name__ == "__main__":
    main()
