#!/usr/bin/env python3
"""Turn exam marks into report grades.

Reads a marks export (CSV, one row per student, one column per section) and writes
<name>_graded.csv with the total percentage and the grade for the report:

  --level jc   Junior Cycle descriptors (3rd year and below)
  --level lc   Leaving Certificate H/O grades (5th and 6th year)

Usage:  python3 grade_calc.py marks_3B_christmas_2025.csv --level jc
"""
import argparse
import csv
from pathlib import Path

# Junior Cycle descriptors: lowest percentage for each descriptor
JC_BANDS = [
    (90, "Distinction"),
    (75, "Higher Merit"),
    (55, "Merit"),
    (40, "Achieved"),
    (20, "Partially Achieved"),
    (0, "Not Graded"),
]

# Leaving Certificate higher level: H1 = 90-100, H2 = 80-89, ... H7 = 30-39, H8 = 0-29
LC_BANDS = [(90, "H1"), (80, "H2"), (70, "H3"), (60, "H4"), (50, "H5"), (40, "H6"), (30, "H7"), (0, "H8")]


def grade(pct: float, level: str) -> str:
    bands = JC_BANDS if level == "jc" else LC_BANDS
    for cut, name in bands:
        if pct >= cut:
            return name
    return bands[-1][1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("marks")
    ap.add_argument("--level", choices=["jc", "lc"], default="jc")
    args = ap.parse_args()
    src = Path(args.marks)
    with src.open(newline="") as f:
        rows = list(csv.DictReader(f))
    # column names end in the section's maximum, e.g. section_a_60
    maxima = {c: int(c.rsplit("_", 1)[1]) for c in rows[0] if c[-1].isdigit()}
    out = src.with_name(src.stem + "_graded.csv")
    with out.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "total_pct", "grade"])
        for r in rows:
            pct = 100 * sum(float(r[c]) for c in maxima) / sum(maxima.values())
            w.writerow([r["student"], f"{pct:.0f}", grade(round(pct), args.level)])
    print(f"wrote {out} ({len(rows)} students)")


if __name__ == "__main__":
    main()
