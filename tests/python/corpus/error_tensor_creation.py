# Mistakes readers make building tensors, and the errors PyTorch gives.
import torch

attempts = [
    lambda: torch.tensor("1.5"),
    lambda: torch.tensor(["a", "b"]),
    lambda: torch.tensor([1, "a"]),
    lambda: torch.tensor([[1.0], ["x"]]),
    lambda: torch.tensor(None),
    lambda: torch.tensor({"w": 1.0}),
    lambda: torch.tensor([[1.0, 2.0], [3.0]]),
    lambda: torch.ones(3).softmax(),
    lambda: torch.ones(3).log_softmax(),
]
for make in attempts:
    try:
        print(make())
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
