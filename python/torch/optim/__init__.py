"""`torch.optim`: SGD and Adam as PyTorch's single-tensor (for-loop) paths
write their updates, each an engine op on the parameter under no_grad (the
optimiser computes no gradient; it only moves parameters)."""

import math

from ..autograd.grad_mode import no_grad


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        self.param_groups = []
        for g in params:
            group = dict(defaults)
            group.update(g)
            group["params"] = list(group["params"])
            self.param_groups.append(group)

    @staticmethod
    def _closure(closure):
        """step(closure): the closure re-evaluates the loss with grad on."""
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad

        with enable_grad():
            return closure()

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.zero_()

    def state_dict(self):
        """PyTorch's packing: parameters become their indices across groups."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: dict(v) for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")
        by_index = {}
        for mine, saved in zip(self.param_groups, groups):
            by_index.update(zip(saved["params"], mine["params"]))
            mine.update({k: v for k, v in saved.items() if k != "params"})
        self.state = {}
        for i, values in state_dict["state"].items():
            if i in by_index:
                self.state[by_index[i]] = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in values.items()}

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    @no_grad()
    def step(self, closure=None):
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad if not group["maximize"] else -p.grad
                if group["weight_decay"] != 0:
                    g = g.add(p, alpha=group["weight_decay"])
                if momentum != 0:
                    buf = self.state.setdefault(p, {}).get("momentum_buffer")
                    if buf is None:
                        buf = g.clone().detach()
                        self.state[p]["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(g, alpha=1 - dampening)
                    g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.add_(g, alpha=-lr)
        return loss


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if amsgrad:
            raise NotImplementedError("hookgrad does not implement torch.optim.Adam(amsgrad=True) yet")
        # PyTorch's key order (state_dict prints it).
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused, decoupled_weight_decay=False))

    @no_grad()
    def step(self, closure=None):
        loss = self._closure(closure)
        from .._creation import tensor, zeros_like

        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad if not group["maximize"] else -p.grad
                if group["weight_decay"] != 0:
                    g = g.add(p, alpha=group["weight_decay"])
                st = self.state.setdefault(p, {})
                if not st:
                    # A float32 tensor, as PyTorch keeps it (state_dict shows it).
                    st["step"] = tensor(0.0)
                    st["exp_avg"] = zeros_like(p)
                    st["exp_avg_sq"] = zeros_like(p)
                st["step"].add_(1)
                m, v, t = st["exp_avg"], st["exp_avg_sq"], st["step"].item()
                m.mul_(beta1).add_(g, alpha=1 - beta1)
                v.mul_(beta2).add_(g * g, alpha=1 - beta2)
                bias1 = 1 - beta1 ** t
                bias2 = 1 - beta2 ** t
                step_size = group["lr"] / bias1
                denom = (v.sqrt() / math.sqrt(bias2)).add_(group["eps"])
                p.add_((m / denom) * -step_size)
        return loss


def __getattr__(name):
    # lr_scheduler, RMSprop, …: NotImplementedError naming what PyTorch has.
    from .._missing import missing

    missing("torch.optim", name)


# Where PyTorch defines them: `type(opt)` prints <class 'torch.optim.sgd.SGD'>.
Optimizer.__module__ = "torch.optim.optimizer"
SGD.__module__ = "torch.optim.sgd"
Adam.__module__ = "torch.optim.adam"
