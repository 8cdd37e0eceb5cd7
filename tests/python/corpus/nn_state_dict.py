# state_dict: an OrderedDict of detached tensors, keys as odict_keys.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
sd = model.state_dict()
print(type(sd).__name__)
print(sd.keys())
print(list(sd.keys()))
for k, v in sd.items():
    print(k, tuple(v.shape), v.requires_grad)
print(sd['2.bias'])
print(sd['0.weight'] is model[0].weight, (sd['0.weight'] == model[0].weight).sum())
print(sd)
print(len(sd), '2.weight' in sd)
