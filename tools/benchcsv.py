"""The CSV file every benchmark leaves under build/bench/ beside its table."""
import csv
import os

from qemurun import BUILD


def save(name, rows):
    """rows (dicts with the same keys) as build/bench/<name>, a header line
    from the first row's keys; nothing for no rows. Prints the path."""
    if not rows:
        return
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    path = os.path.join(BUILD, "bench", name)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"CSV: {path}")
