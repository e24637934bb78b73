#!/usr/bin/env python3
"""The library's host time over cudaGraphLaunch's, from dispatch-bench --peers --format csv runs.

Reads the output of docs/measurements/h100-issue60-*.sh (sections headed
"=== dispatch-bench round R: LABEL", each a dispatch-bench CSV) and prints, for each file and
each LABEL, the median over the rounds of each round's paired median at every dispatch count.
dispatch-bench prints the paired ratio as the peer's over the library's (host_vs_hsadispatch_paired
on the cudaGraphLaunch row); this prints its reciprocal, so that below 1 means the library is
cheaper.

    python3 docs/measurements/issue60-ratios.py docs/measurements/issue60-2026-11-28-fourteenth/*.txt
"""
import csv
import re
import statistics
import sys


def ratios(path):
    per_label = {}
    label = None
    for line in open(path):
        header = re.match(r"=== dispatch-bench round (\d+): (.*)", line)
        if header:
            label = header.group(2).strip()
            continue
        if line.startswith("cuda,") and "cudaGraphLaunch" in line:
            row = next(csv.reader([line]))
            count, paired = int(row[4]), float(row[12])
            per_label.setdefault(label, {}).setdefault(count, []).append(1 / paired)
    return per_label


for path in sys.argv[1:]:
    print(path)
    for label, per_count in ratios(path).items():
        rounds = len(next(iter(per_count.values())))
        medians = " / ".join("%.2f" % statistics.median(v) for _, v in sorted(per_count.items()))
        print("  %-34s %s   (%d rounds; N = %s)" % (label, medians, rounds, ", ".join(str(n) for n in sorted(per_count))))
