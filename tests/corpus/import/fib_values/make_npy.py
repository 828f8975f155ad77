#!/usr/bin/env python3
# Regenerates the fixed data of fib_values.comp (the import corpus's
# expected-outputs reference): values_in.npy, 1024 uint32 in 0..40 from a
# fixed seed, and values_out.npy, fibonacci of each mod 2^32. Deterministic:
# running it again writes byte-identical files. Needs numpy; run from any
# directory:
#   python3 make_npy.py
import pathlib

import numpy as np

SEED = 20240611
COUNT = 1024
MAX_VALUE = 40

def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a % (1 << 32)

def main() -> None:
    rng = np.random.default_rng(SEED)
    values = rng.integers(0, MAX_VALUE, size=COUNT, endpoint=True,
                          dtype=np.uint32)
    # Make sure the edge cases are there whatever the draw: zeros (the loop
    # runs zero times), 1, 2 and the maximum.
    values[[0, 1, 2, 3, 511, COUNT - 1]] = [0, 1, 2, MAX_VALUE, 0, 0]
    expected = np.array([fibonacci(int(v)) for v in values], dtype=np.uint32)

    here = pathlib.Path(__file__).resolve().parent
    np.save(here / "values_in.npy", values)
    np.save(here / "values_out.npy", expected)

if __name__ == "__main__":
    main()
