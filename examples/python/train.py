"""A stand-in for a training script, in plain Python: a data loader that decompresses batches
(zlib, native code under a Python frame), a small model whose forward and backward passes are
Python loops, and an optimizer step; a background thread prefetches. Profile it with

    rocsys-top -- python3 examples/python/train.py [SECONDS]

and the call tree shows train -> Trainer.step -> Model.forward -> Linear.forward, with zlib's
native frames under DataLoader.next_batch. If the rocsys module is importable (rocsys-top puts
it on PYTHONPATH), epochs and steps are user regions too."""
import random
import sys
import threading
import time
import zlib

try:
    import rocsys
except ImportError:  # run without rocsys-top: regions are no-ops
    rocsys = None


def region(name):
    return rocsys.region(name) if rocsys else _NoRegion()


class _NoRegion:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class DataLoader:
    def __init__(self, batch):
        rng = random.Random(1)
        raw = bytes(rng.getrandbits(4) for _ in range(batch * 64))
        self.blob = zlib.compress(raw, 6)

    def next_batch(self):
        raw = zlib.decompress(self.blob)
        return [b / 15.0 for b in raw[:256]]


class Linear:
    def __init__(self, n_in, n_out, seed):
        rng = random.Random(seed)
        self.w = [[rng.uniform(-0.1, 0.1) for _ in range(n_in)] for _ in range(n_out)]

    def forward(self, x):
        return [sum(wi * xi for wi, xi in zip(row, x)) for row in self.w]

    def backward(self, grad, lr):
        for row, g in zip(self.w, grad):
            for i in range(len(row)):
                row[i] -= lr * g * 0.001


class Model:
    def __init__(self):
        self.layers = [Linear(256, 64, 1), Linear(64, 16, 2)]

    def forward(self, x):
        for layer in self.layers:
            x = [max(0.0, v) for v in layer.forward(x)]
        return x

    def backward(self, loss, lr):
        for layer in reversed(self.layers):
            layer.backward([loss] * len(layer.w), lr)


def loss_fn(out):
    return sum(v * v for v in out) / len(out)


class Trainer:
    def __init__(self):
        self.model = Model()
        self.loader = DataLoader(64)

    def step(self, lr):
        with region("step"):
            batch = self.loader.next_batch()
            out = self.model.forward(batch)
            loss = loss_fn(out)
            self.model.backward(loss, lr)
            return loss


def prefetch(stop):
    loader = DataLoader(128)
    while not stop.is_set():
        loader.next_batch()
        time.sleep(0.002)


def train(seconds):
    trainer = Trainer()
    stop = threading.Event()
    worker = threading.Thread(target=prefetch, args=(stop,), name="prefetch")
    worker.start()
    end = time.time() + seconds
    epoch = 0
    while seconds == 0 or time.time() < end:
        with region("epoch"):
            for _ in range(5):
                loss = trainer.step(0.01)
        epoch += 1
        print("epoch %d loss %.6f" % (epoch, loss), flush=True)
    stop.set()
    worker.join()


if __name__ == "__main__":
    train(float(sys.argv[1]) if len(sys.argv) > 1 else 10)
