#!/usr/bin/env python3
"""Draws the figures of Papers/ as SVG from the measured JSON (issue 16, item 5).

Why: the tables in Papers/results.md say everything, but a ratio per phase set
against the peers' ratios, a per-row cost against rows, and the simulator's
coverage read faster as pictures. Scripts/bench-report.sh runs this with
matplotlib from PyPI in a virtual environment of its own; the output is
deterministic (fixed hash salt, no date, text drawn as outlines of the font
bundled with matplotlib, pinned versions), so drawing twice from the same JSON gives the same bytes.

Inputs (all under Papers/ unless given):
  results.json   what `concord bench --json-file` wrote (one or several sizes)
  peers.json     the peers' ratios, transcribed from shared/peers.md
  coverage.json  the simulator's coverage, summarised by --simulation below

Usage:
  plot-figures.py [--papers DIR] [--simulation RAW.json --simulation-command CMD]

With --simulation, RAW.json is the output of `concord simulate ... --json`;
its coverage summary and the share of each scenario family's runs that
reached each event are written to coverage.json first, then everything is
drawn. Writes figure-ratios.svg, figure-scaling.svg and figure-coverage.svg.
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

# Deterministic bytes: the SVG backend's element ids come from this salt, and
# text is drawn as outlines of the font matplotlib ships, so it looks the same
# in every viewer whatever fonts it has.
plt.rcParams.update(
    {
        "svg.hashsalt": "concord-figures",
        "svg.fonttype": "path",
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
)
METADATA = {"Date": None, "Creator": "Scripts/plot-figures.py"}

CONCORD = "#2b6cb0"
PLAIN = "#718096"
PEER_COLOURS = ["#dd6b20", "#f6ad55", "#9f7aea"]


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def reports(results):
    """The per-size reports, smallest first, whether one size or several were run."""
    found = results["reports"] if "reports" in results else [results]
    return sorted(found, key=lambda report: report["rows"])


def phase(report, name):
    return next(p for p in report["phases"] if p["name"] == name)


def save(figure, path):
    figure.savefig(path, format="svg", metadata=METADATA, bbox_inches="tight")
    plt.close(figure)
    print(f"wrote {path}", file=sys.stderr)


def draw_ratios(results, peers, path):
    """Concord's ratio to plain SQLite per phase at the peers' row count, beside each peer's."""
    rows = peers["rows"]
    report = next((r for r in reports(results) if r["rows"] == rows), reports(results)[-1])
    # The peers do their metadata work as the app writes: their insert and update set against
    # Concord's capture plus fold; export and apply both against a plain insert, as both measure.
    phases = [
        ("insert", "insert + fold", "insert*"),
        ("update", "update + fold", "update*"),
        ("apply", "apply", "apply to a\nfresh replica"),
        ("export", "export", "export"),
        ("size", "size", "file size\nafter insert"),
        ("size after update", "size after update", "file size\nafter update"),
        ("point reads", "point reads", "point reads\nby key"),
    ]
    series = [(f"Concord (SQLite {report['sqlite']})", CONCORD, [phase(report, c)["ratio"] for _, c, _ in phases])]
    for colour, measurement in zip(PEER_COLOURS, peers["measurements"]):
        version = measurement["version"]
        named = measurement["peer"] + (f" {version}" if version[0] == "v" else "")
        label = f"{named} (SQLite {measurement['sqlite'].split(' ')[0]}, {measurement['measured']})"
        series.append((label, colour, [measurement["ratios"].get(p) for p, _, _ in phases]))

    figure, axes = plt.subplots(figsize=(9, 4.2))
    width = 0.8 / len(series)
    for index, (label, colour, values) in enumerate(series):
        xs = [x + (index - (len(series) - 1) / 2) * width for x in range(len(phases))]
        shown = [(x, v) for x, v in zip(xs, values) if v is not None]
        bars = axes.bar([x for x, _ in shown], [v for _, v in shown], width, label=label, color=colour)
        for bar, (_, value) in zip(bars, shown):
            axes.annotate(
                f"{value:.1f}", (bar.get_x() + bar.get_width() / 2, value), ha="center", va="bottom",
                fontsize=6.5, xytext=(0, 1), textcoords="offset points")
    axes.axhline(1, color="black", linewidth=0.8)
    axes.set_yscale("log")
    axes.set_yticks([1, 2, 3, 5, 10, 20, 40])
    axes.set_yticklabels(["1x", "2x", "3x", "5x", "10x", "20x", "40x"])
    axes.set_ylim(0.5, 60)
    axes.set_xticks(range(len(phases)))
    axes.set_xticklabels([label for _, _, label in phases])
    axes.set_ylabel("time or size over plain SQLite (log scale)")
    at = f"{rows:,} rows" if report["rows"] == rows else f"{report['rows']:,} rows (peers: {rows:,})"
    axes.set_title(
        f"Cost over plain SQLite at {at}, medians ({report['runs']} runs for Concord, 3 for each peer)", fontsize=10)
    axes.legend(fontsize=7.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2)
    axes.annotate(
        "* Concord's capture plus fold: the peers do their metadata work as the app writes.",
        (0, 0), xycoords="axes fraction", xytext=(0, -88), textcoords="offset points", fontsize=7, color="#4a5568")
    save(figure, path)


def draw_scaling(results, path):
    """Microseconds per row against rows, Concord's phases and plain SQLite's baselines."""
    sized = reports(results)
    rows = [r["rows"] for r in sized]
    figure, panels = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    groups = [
        ("writes the app makes", ["insert", "update", "insert + fold", "update + fold"], ["insert", "update"],
         ["-o", "-s", "--o", "--s"]),
        ("exchanging changes, reading", ["export", "apply", "point reads"], ["insert", "point reads"],
         ["-o", "-s", "-D"]),
    ]
    for axes, (title, names, baselines, styles) in zip(panels, groups):
        for style, name in zip(styles, names):
            values = [phase(r, name)["concordPerOperation"] for r in sized]
            axes.plot(rows, values, style, color=CONCORD, label=f"Concord {name}", markersize=4,
                      alpha=1 if "fold" not in name else 0.6)
        for style, name in zip([":^", ":v"], baselines):
            values = [phase(r, name)["plainPerOperation"] for r in sized]
            axes.plot(rows, values, style, color=PLAIN, label=f"plain SQLite {name}", markersize=4)
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xticks(rows)
        axes.set_xticklabels([f"{r:,}" for r in rows])
        axes.minorticks_off()
        axes.set_xlabel("rows")
        axes.set_title(title, fontsize=10)
        axes.legend(fontsize=7, frameon=False)
    panels[0].set_ylabel("microseconds per row (log scale)")
    ticks = [1, 2, 5, 10, 20, 50]
    panels[0].set_yticks(ticks)
    panels[0].set_yticklabels([str(t) for t in ticks])
    runs = ", ".join(f"{r['rows']:,}: {r['runs']}" for r in sized)
    figure.suptitle(f"Cost per row against rows (medians; runs per size {runs})", fontsize=10)
    save(figure, path)


def summarise_coverage(raw, command):
    """The coverage summary of a `concord simulate --json` run, and per scenario family the runs reaching each event."""
    events = [entry["event"] for entry in raw["coverage"]]
    families = {}
    for result in raw["results"]:
        family = families.setdefault(result["scenario"], {"runs": 0, "reached": {e: 0 for e in events}})
        family["runs"] += 1
        for event, occurrences in result["coverage"].items():
            if occurrences > 0:
                family["reached"][event] += 1
    return {
        "command": command,
        "runs": len(raw["results"]),
        "coverage": raw["coverage"],
        "scenarios": {name: families[name] for name in sorted(families)},
    }


def draw_coverage(coverage, path):
    """Share of each scenario family's runs that reached each event, as a table of shaded cells."""
    events = [entry["event"] for entry in coverage["coverage"]]
    names = list(coverage["scenarios"])
    grid = [[coverage["scenarios"][n]["reached"].get(e, 0) / coverage["scenarios"][n]["runs"] for n in names]
            for e in events]
    totals = [entry["runs"] / coverage["runs"] for entry in coverage["coverage"]]
    figure, axes = plt.subplots(figsize=(1.6 + 0.62 * (len(names) + 1), 0.8 + 0.26 * len(events)))
    columns = [row + [total] for row, total in zip(grid, totals)]
    axes.imshow(columns, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for y, row in enumerate(columns):
        for x, share in enumerate(row):
            text = "-" if share == 0 else "<1" if share < 0.005 else f"{share * 100:.0f}"
            axes.text(x, y, text, ha="center", va="center", fontsize=6.5,
                      color="white" if share > 0.6 else "black")
    axes.axvline(len(names) - 0.5, color="white", linewidth=3)
    axes.set_xticks(range(len(names) + 1))
    labels = [f"{n}\n({coverage['scenarios'][n]['runs']})" for n in names] + [f"all\n({coverage['runs']})"]
    axes.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    axes.set_yticks(range(len(events)))
    axes.set_yticklabels(events, fontsize=7)
    for spine in axes.spines.values():
        spine.set_visible(False)
    axes.tick_params(length=0)
    axes.set_title("Share of runs (%) that reached each event, per scenario family (runs)", fontsize=9)
    save(figure, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", default=os.path.join(os.path.dirname(__file__), "..", "Papers"))
    parser.add_argument("--simulation", help="raw `concord simulate --json` output to summarise into coverage.json")
    parser.add_argument("--simulation-command", default="concord simulate Simulations/*.json --json")
    arguments = parser.parse_args()
    papers = os.path.normpath(arguments.papers)
    coverage_path = os.path.join(papers, "coverage.json")
    if arguments.simulation:
        summary = summarise_coverage(load(arguments.simulation), arguments.simulation_command)
        with open(coverage_path, "w", encoding="utf-8") as file:
            json.dump(summary, file, indent=2, sort_keys=True)
            file.write("\n")
        print(f"wrote {coverage_path}", file=sys.stderr)
    results = load(os.path.join(papers, "results.json"))
    draw_ratios(results, load(os.path.join(papers, "peers.json")), os.path.join(papers, "figure-ratios.svg"))
    draw_scaling(results, os.path.join(papers, "figure-scaling.svg"))
    draw_coverage(load(coverage_path), os.path.join(papers, "figure-coverage.svg"))


if __name__ == "__main__":
    main()
