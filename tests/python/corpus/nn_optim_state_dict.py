# Printing an optimizer and its state_dict (checkpointing code), and loading it back.
import torch
import torch.nn as nn

torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
print(opt)
print(opt.state_dict())
x = torch.randn(3, 2)
adam = torch.optim.Adam(m.parameters(), lr=0.01)
m(x).sum().backward()
adam.step()
opt.step()
sd = adam.state_dict()
print(sd["state"][0]["step"], sorted(sd["state"].keys()))
print(sd["param_groups"])
print(opt.state_dict()["state"][1])
again = torch.optim.Adam(m.parameters(), lr=0.5)
again.load_state_dict(sd)
print(again.param_groups[0]["lr"], again.state_dict()["state"][0]["exp_avg"])
