"""rocsys-top test workload: a small PyTorch training loop on the CPU.

A two-layer perceptron (torch.nn.Linear, ReLU) learns a random regression with SGD for SECONDS
(argument, default 3.0) of wall time after the import; train_step does one forward, backward and
optimizer step. One intra-op thread, so that ATen's and the BLAS library's work runs on the
calling thread, under the Python frames that called it. Prints the steps done and the last loss.
"""
import sys
import time

import torch

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0


class Net(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = torch.nn.Linear(width, width)
        self.fc2 = torch.nn.Linear(width, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = Net(512)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, 512)
    y = torch.randn(256, 1)
    steps, loss = 0, 0.0
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        loss = train_step(model, opt, x, y)
        steps += 1
    print("steps %d loss %.4f" % (steps, loss))


if __name__ == "__main__":
    main()
