# What each kind of gradient hook may return, and PyTorch's error when it returns
# something else (a number, a list, too many values, a string in the tuple).
import torch, torch.nn as nn
def run(label, f):
    try:
        f(); print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, "|", str(e).split("\n")[0][:220])
def mk(kind, ret):
    def f():
        x = torch.tensor([2.], requires_grad=True)
        y = x * 2
        if kind == "post": y.grad_fn.register_hook(lambda gi, go: ret)
        if kind == "pre": y.grad_fn.register_prehook(lambda go: ret)
        if kind == "full":
            m = nn.Linear(1, 1); m.register_full_backward_hook(lambda m_, gi, go: ret); y = m(y)
        if kind == "fullpre":
            m = nn.Linear(1, 1); m.register_full_backward_pre_hook(lambda m_, go: ret); y = m(y)
        if kind == "legacy":
            m = nn.Linear(1, 1); m.register_backward_hook(lambda m_, gi, go: ret); y = m(y)
        y.sum().backward()
    return f
for kind in ["post", "pre", "full", "fullpre", "legacy"]:
    for ret in [5, [torch.ones(1)], (torch.ones(1), torch.ones(1), torch.ones(1)), ("a",)]:
        run(f"{kind} {type(ret).__name__}{len(ret) if isinstance(ret,(list,tuple)) else ''}", mk(kind, ret))
