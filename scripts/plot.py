#!/usr/bin/env python3
"""The benches' JSON as SVG (matplotlib, Debian's python3-matplotlib).

    python3 scripts/plot.py BENCH.json [MORE.json ...] [-o OUT.svg] [--title TEXT]

The plot is picked from what the JSON holds:
  bitonic-bench --format json      the ladder: one bar per flag row (median, p10-p90), one colour
                                   per file (a backend each), the CUDA peers beside them
  laplacian-bench --format json    the figure of merit against the copy bandwidth, by size and kernel
  laplacian-bench --devices N      scaling: efficiency and figure of merit per device against N
  memory-bench --format json       each workload's bandwidth as a fraction of the copy bandwidth
  dispatch-bench --format json     the host time of submitting, per dispatch, against the batch's
                                   size: the library and each --peers runtime, one line each
Several files of one kind go into one plot (the ladder of several backends, for instance).
Without -o, the SVG is written beside the first file (BENCH.svg).
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402


def kind_of(doc):
    rows = doc.get("rows") or []
    if not rows:
        raise ValueError("no rows")
    first = rows[0]
    if "config" in first and "median_us" in first:
        return "ladder"
    if "impl" in first and "host_ns_per_dispatch" in first:
        return "dispatch"
    if "devices" in first:
        return "scaling"
    if "kernel" in first and "fom_gbs" in first:
        return "laplacian"
    if "workload" in first:
        return "memory"
    raise ValueError("rows of an unknown bench (keys: %s)" % ", ".join(sorted(first)))


def label_of(doc, path):
    device = doc.get("device") or (doc.get("rows") or [{}])[0].get("device", "")
    backend = doc.get("backend") or (doc.get("rows") or [{}])[0].get("backend", "")
    return "%s: %s" % (backend, device) if backend else os.path.basename(path)


def plot_dispatch(docs, ax):
    # dispatch-bench: the host time of submitting, per dispatch, against the batch's size; one line
    # per runtime (the library and each peer) per file.
    for path, doc in docs:
        impls = []
        for r in doc["rows"]:
            if r["impl"] not in impls:
                impls.append(r["impl"])
        for impl in impls:
            rows = sorted((r for r in doc["rows"] if r["impl"] == impl), key=lambda r: r["dispatches"])
            xs = [r["dispatches"] for r in rows]
            ys = [r["host_ns_per_dispatch"] for r in rows]
            lo = [max(0.0, r["host_ns_per_dispatch"] - r.get("host_p10_ns", r["host_ns_per_dispatch"])) for r in rows]
            hi = [max(0.0, r.get("host_p90_ns", r["host_ns_per_dispatch"]) - r["host_ns_per_dispatch"]) for r in rows]
            note = rows[0].get("note", "-")
            label = "%s: %s%s" % (label_of(doc, path), impl, "" if note in ("-", "") else " (%s)" % note)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=2, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("dispatches per batch")
    ax.set_ylabel("host time submitting, ns per dispatch (median, p10-p90; log)")
    ax.set_title("dispatch-bench: what a dispatch costs the host, the library beside the vendor's runtime")


def plot_ladder(docs, ax):
    configs = []
    for _, doc in docs:
        for r in doc["rows"]:
            if r["config"] not in configs:
                configs.append(r["config"])
    peers = []
    for _, doc in docs:
        for p in doc.get("peers", []):
            if p["peer"] not in peers:
                peers.append(p["peer"])
    groups = configs + ["peer: " + p for p in peers]
    width = 0.8 / max(1, len(docs))
    for i, (path, doc) in enumerate(docs):
        values = {r["config"]: r for r in doc["rows"]}
        values.update({"peer: " + p["peer"]: p for p in doc.get("peers", [])})
        xs, ys, lo, hi = [], [], [], []
        for g, name in enumerate(groups):
            r = values.get(name)
            if not r:
                continue
            xs.append(g + (i - (len(docs) - 1) / 2) * width)
            ys.append(r["median_us"])
            lo.append(max(0.0, r["median_us"] - r.get("p10_us", r["median_us"])))
            hi.append(max(0.0, r.get("p90_us", r["median_us"]) - r["median_us"]))
        label = "%s, %s keys, %s dispatches" % (label_of(doc, path), doc.get("n"), doc.get("dispatches"))
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("latency per iteration, µs (median, p10-p90; log)")
    ax.set_title("bitonic sort: the dispatch-optimization ladder (copy in, sort, copy out)")


def plot_laplacian(docs, ax):
    rows = [(path, r) for path, doc in docs for r in doc["rows"]]
    sizes = []
    for _, r in rows:
        s = "%dx%dx%d" % (r["nx"], r["ny"], r["nz"])
        if s not in sizes:
            sizes.append(s)
    kernels = sorted({(r["backend"], r["kernel"]) for _, r in rows}, key=str)
    width = 0.8 / max(1, len(kernels))
    for i, (backend, kernel) in enumerate(kernels):
        xs, ys = [], []
        for _, r in rows:
            if (r["backend"], r["kernel"]) != (backend, kernel):
                continue
            xs.append(sizes.index("%dx%dx%d" % (r["nx"], r["ny"], r["nz"])) + (i - (len(kernels) - 1) / 2) * width)
            ys.append(r["fom_gbs"])
        ax.bar(xs, ys, width, label="%s, Kernel %s" % (backend, kernel))
    copy = {}
    for _, r in rows:
        s = "%dx%dx%d" % (r["nx"], r["ny"], r["nz"])
        copy[s] = max(copy.get(s, 0.0), r.get("copy_gbs") or 0.0)
    ax.hlines([copy[s] for s in sizes], [i - 0.45 for i in range(len(sizes))], [i + 0.45 for i in range(len(sizes))],
              colors="black", linewidths=2, label="copy bandwidth (same run)")
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(sizes)
    ax.set_ylabel("figure of merit, GB/s")
    ax.set_title("Laplacian: figure of merit against the copy bandwidth")


def plot_scaling(docs, ax):
    for path, doc in docs:
        rows = sorted(doc["rows"], key=lambda r: r["devices"])
        xs = [r["devices"] for r in rows]
        # Weak scaling grows the grid with the devices; strong keeps it.
        weak = rows[-1]["nz"] > rows[0]["nz"]
        grid = "%dx%dx%d" % (rows[0]["nx"], rows[0]["ny"], rows[0]["nz"])
        what = "weak, %s per device" % grid if weak else "strong, %s" % grid
        ax.plot(xs, [r["efficiency"] for r in rows], "o-",
                label="%s, Kernel %s (%s)" % (label_of(doc, path), rows[0]["kernel"], what))
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("devices")
    ax.set_ylabel("efficiency (figure of merit per device / one device's)")
    ax.set_ylim(0, 1.1)
    ax.set_xticks(sorted({r["devices"] for _, doc in docs for r in doc["rows"]}))
    ax.set_title("Laplacian over several devices: scaling")


def plot_memory(docs, ax):
    rows = [(path, r) for path, doc in docs for r in doc["rows"]]
    names = []
    for _, r in rows:
        name = r["workload"] + (" (block %s)" % r["block"] if sum(1 for _, q in rows if q["workload"] == r["workload"]) > 1 else "")
        names.append(name)
    ax.barh(range(len(rows)), [r["ratio"] for _, r in rows], color="tab:blue")
    ax.axvline(1.0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("bandwidth / copy bandwidth (same run)")
    ax.set_title("memory-bench: " + label_of(docs[0][1], docs[0][0]))


PLOTS = {"ladder": plot_ladder, "laplacian": plot_laplacian, "scaling": plot_scaling, "memory": plot_memory,
         "dispatch": plot_dispatch}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="a bench's --format json output")
    parser.add_argument("-o", "--output", help="the SVG to write (default: beside the first file)")
    parser.add_argument("--title", help="a title above the plot's own")
    args = parser.parse_args(argv)
    docs = []
    for path in args.json:
        try:
            with open(path) as f:
                docs.append((path, json.load(f)))
        except (OSError, ValueError) as e:
            sys.exit("plot.py: cannot read %s: %s" % (path, e))
    try:
        kinds = {kind_of(doc) for _, doc in docs}
    except ValueError as e:
        sys.exit("plot.py: %s" % e)
    if len(kinds) != 1:
        sys.exit("plot.py: the files hold different benches (%s): one plot takes one kind" % ", ".join(sorted(kinds)))
    kind = kinds.pop()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    PLOTS[kind](docs, ax)
    if args.title:
        fig.suptitle(args.title)
    ax.grid(True, axis="y" if kind != "memory" else "x", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    out = args.output or os.path.splitext(args.json[0])[0] + ".svg"
    fig.savefig(out, format="png" if out.endswith(".png") else "svg")  # PNG only to look at one
    print("plot.py: %s (%s) -> %s" % (", ".join(args.json), kind, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
