#!/usr/bin/env python3
"""Mutation testing: plant one mechanical mistake at a time in the engine and see if the simulator catches it.

    Scripts/mutate.py list                  # (re)write Papers/mutants.tsv from the rule below
    Scripts/mutate.py run                   # every mutant in the list, the CI-sized budget
    Scripts/mutate.py run --only 3,17,40    # some of them
    Scripts/mutate.py run --limit 20 --seeds 1..10
    Scripts/mutate.py score                 # the score of the verdicts in Papers/mutants-results.tsv

The rule is fixed and mechanical, so the list is the same for the same sources and nobody
picks mutants a simulator happens to catch. In the files of FILES (the clock, stamp order,
causal length, merges, visibility and parking, the codecs and the fold), on every line of code
(not comments, not inside string literals, not in precondition/assert/fatalError lines), each
occurrence of:

    comparison   ' < ' ' > ' ' <= ' ' >= ' ' == ' ' != '   flipped to  ' >= ' ' <= ' ' > ' ' < ' ' != ' ' == '
    off-by-one   '+ 1' '- 1' '+= 1' '-= 1'                  becomes     '+ 2' '- 2' '+= 2' '-= 2'
    extreme      'max(' 'min(' '.max' '.min'                swapped     'min(' 'max(' '.min' '.max'
    argument     'merge(a, b)' (two plain arguments)        duplicated  'merge(a, a)'

is one mutant. (Binary operators have spaces around them in this code base — swift-format
enforces it — so generic brackets such as Array<UInt8> never match.)

`run` applies each mutant to a separate git worktree (/tmp/concord-mutants, reused so builds
are incremental), builds the release `concord`, and runs the budget: the default scenario over
--seeds (1..30) and every Simulations/*.json over --file-seeds (1..40, the seeds .ci/run simulates
every file with, so the budget is the CI's own), two jobs each, each stopping at its first
failing run (--fail-fast): about a minute per mutant that survives, less for one caught early.
A mutant is "caught" when a simulation run fails (or hangs past --timeout), "survived" when every run
passes, "not built" when the compiler refuses it (a mutant the type system already catches;
not counted), and "stale" when no line of its file reads as listed any more (a mutant is found by
its line's text, so lines added or removed elsewhere in the file move it, not lose it). The
unmutated build runs the budget first and must pass it, but for falling short of a scenario's mustReach events (the budget
explored too little); a mutant is excused the same shortfalls, and no others. It prints a table and the
simulator-alone score, and writes the verdicts into Papers/mutants-results.tsv as each mutant is
judged (keeping the other listed mutants' verdicts, so an interrupted run keeps what it found and
`--only` re-runs some).

Python 3 standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "Papers", "mutants.tsv")
RESULTS = os.path.join(ROOT, "Papers", "mutants-results.tsv")
TREE = "/tmp/concord-mutants"

FILES = [
    "Sources/ConcordCore/Clock/HLCTimestamp.swift",
    "Sources/ConcordCore/Clock/HybridLogicalClock.swift",
    "Sources/ConcordCore/Model/Stamp.swift",
    "Sources/ConcordCore/Model/Registers.swift",
    "Sources/ConcordCore/Model/ColumnMerge.swift",
    "Sources/ConcordCore/Merge/LocalJoin.swift",
    "Sources/ConcordCore/Merge/LocalWrite.swift",
    "Sources/ConcordCore/Merge/RowMerge.swift",
    "Sources/ConcordCore/Merge/UnionValue.swift",
    "Sources/ConcordCore/Visibility/Visibility.swift",
    "Sources/ConcordCore/Visibility/ForeignKey.swift",
    "Sources/ConcordCore/Changeset/ChangesetEncoder.swift",
    "Sources/ConcordCore/Changeset/ChangesetDecoder.swift",
    "Sources/ConcordCore/Changeset/Changeset+JSON.swift",
    "Sources/Concord/Replica/Replica+Fold.swift",
    "Sources/Concord/Replica/PendingJoins.swift",
]

FLIPS = {" < ": " >= ", " > ": " <= ", " <= ": " > ", " >= ": " < ", " == ": " != ", " != ": " == "}
OFF_BY_ONE = {"+= 1": "+= 2", "-= 1": "-= 2", "+ 1": "+ 2", "- 1": "- 2"}
EXTREMES = {"max(": "min(", "min(": "max(", ".max": ".min", ".min": ".max"}
MERGE_CALL = re.compile(r"\b(merge\w*)\(\s*([A-Za-z_][\w.]*)\s*,\s*([A-Za-z_][\w.]*)\s*\)")
SKIP = re.compile(r"^\s*(//|import\b|@)|\bfunc\s*[<>=!]+\s*\(|\b(precondition|assert|assertionFailure|fatalError|preconditionFailure)\(")


def code_spans(line):
    """The line with string literals and a trailing comment blanked out (same length), so matches stay in code."""
    out, i, in_string = [], 0, False
    while i < len(line):
        c = line[i]
        if not in_string and line.startswith("//", i):
            out.append(" " * (len(line) - i))
            break
        if c == '"':
            in_string = not in_string
            out.append(c)
        elif in_string:
            out.append("\\" if c == "\\" else " ")
            if c == "\\" and i + 1 < len(line):
                out.append(" ")
                i += 1
        else:
            out.append(c)
        i += 1
    return "".join(out)


def find_all(text, needle):
    start = text.find(needle)
    while start >= 0:
        yield start
        start = text.find(needle, start + 1)


def mutants_of_line(line):
    """(rule, start, end, replacement) for every mutant of one line of code."""
    if SKIP.search(line):
        return []
    code = code_spans(line)
    found = []
    for table, rule in ((FLIPS, "comparison"), (OFF_BY_ONE, "off-by-one")):
        taken = set()
        for needle in sorted(table, key=len, reverse=True):
            for at in find_all(code, needle):
                if any(at < end and start < at + len(needle) for start, end in taken):
                    continue
                if rule == "off-by-one" and at + len(needle) < len(code) and code[at + len(needle)].isalnum():
                    continue  # "+ 10", "- 1_000"
                taken.add((at, at + len(needle)))
                found.append((rule, at, at + len(needle), table[needle]))
    for needle, swapped in EXTREMES.items():
        for at in find_all(code, needle):
            before = code[at - 1] if at > 0 else " "
            after = code[at + len(needle)] if at + len(needle) < len(code) else " "
            if needle[0] != "." and (before.isalnum() or before == "_"):
                continue  # "setMax(", "isMin("
            if needle[0] == "." and (after.isalnum() or after == "_"):
                continue  # ".maximum", ".minutes"
            found.append(("extreme", at, at + len(needle), swapped))
    for match in MERGE_CALL.finditer(code):
        if match.group(2) != match.group(3):
            found.append(("argument", match.start(3), match.end(3), match.group(2)))
    return sorted(found, key=lambda m: (m[1], m[0]))


def generate():
    rows = []
    for path in FILES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        for number, line in enumerate(lines, 1):
            for rule, start, end, replacement in mutants_of_line(line):
                rows.append((path, number, rule, start, line[start:end], replacement, line.strip()))
    return [(index + 1,) + row for index, row in enumerate(rows)]


def write_list(rows):
    with open(LIST, "w", encoding="utf-8") as handle:
        handle.write("id\tfile\tline\trule\tcolumn\tbefore\tafter\tsource\n")
        for row in rows:
            handle.write("\t".join(str(field) for field in row) + "\n")


def read_list():
    with open(LIST, encoding="utf-8") as handle:
        next(handle)
        for raw in handle:
            mid, path, line, rule, column, before, after, source = raw.rstrip("\n").split("\t")
            yield int(mid), path, int(line), rule, int(column), before, after, source


def seeds(text):
    if not re.fullmatch(r"\d+\.\.\d+", text):
        raise argparse.ArgumentTypeError("expected a..b, e.g. 1..30")
    return text


def run_command(arguments, cwd, timeout):
    try:
        done = subprocess.run(arguments, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return done.returncode, done.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "timed out"


def prepare_tree():
    if not os.path.isdir(TREE):
        subprocess.run(["git", "worktree", "add", "--detach", TREE, "HEAD"], cwd=ROOT, check=True)
    # The worktree follows this checkout's HEAD, plus any uncommitted change to the mutated files.
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True)
    subprocess.run(["git", "checkout", "--detach", "--force", head.stdout.strip()], cwd=TREE, check=True,
                   capture_output=True)
    for path in FILES:
        with open(os.path.join(ROOT, path), "rb") as source, open(os.path.join(TREE, path), "wb") as target:
            target.write(source.read())


# Release, but file by file: a mutant changes one function body, so only its file compiles again (about
# 12 s on two cores, against a minute or two for a whole-module build), and the simulator runs as fast.
BUILD = ["swift", "build", "-c", "release", "--product", "concord", "-Xswiftc", "-no-whole-module-optimization"]


def locate(lines, path, number, source):
    """The line a listed mutant is on now, so that edits elsewhere in its file (lines added above it)
    leave the list valid: among the lines that read (stripped) as its listed source, the k-th when it
    was the k-th listed so; else the listed line if it still reads so, or the nearest that does.
    None when no line reads so (the mutant is stale)."""
    same = [index + 1 for index, line in enumerate(lines) if line.strip() == source]
    if not same:
        return None
    # Same-reading lines carry the same mutants, so the list names every one of them.
    listed = sorted({m[2] for m in read_list() if m[1] == path and m[7] == source})
    if number in listed and len(listed) == len(same):
        return same[listed.index(number)]
    return min(same, key=lambda candidate: abs(candidate - number))


def try_mutant(mutant, options):
    mid, path, number, rule, column, before, after, source = mutant
    file = os.path.join(TREE, path)
    with open(file, encoding="utf-8") as handle:
        original = handle.read()
    lines = original.split("\n")
    number = locate(lines, path, number, source)
    line = lines[number - 1] if number and number <= len(lines) else ""
    if line[column:column + len(before)] != before:
        return "stale", ""
    lines[number - 1] = line[:column] + after + line[column + len(before):]
    try:
        with open(file, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines))
        status, output = run_command(BUILD, TREE, 1800)
        if status != 0:
            return "not built", ""
        failure = run_budget(options, options.excused)
        # One line of the table: a crash's tail may hold newlines and tabs.
        return ("caught", " ".join(failure.split())[:160]) if failure is not None else ("survived", "")
    finally:
        with open(file, "w", encoding="utf-8") as handle:
            handle.write(original)


# A batch whose runs all passed but that never reached an event its scenario lists in mustReach exits 1
# too. When the unmutated build falls short the same way, the budget explored too little and it is no
# catch; when only the mutant falls short, the mutant changed what runs do (a clock that ignores
# physical time never refuses a drifting peer), and it is.
SHORTFALL = re.compile(r"^Error: .*: no run of \d+ reached ")


def run_budget(options, excused=frozenset()):
    """Runs the simulation budget on the tree's release build: the first failure, or None when all pass.
    Shortfalls listed in `excused` (the unmutated build's own) do not count."""
    concord = os.path.join(TREE, ".build", "release", "concord")
    # --fail-fast: a caught mutant's budget ends at its first failing run, which is all a verdict needs.
    budgets = [[concord, "simulate", "--seeds", options.seeds, "--jobs", str(options.jobs), "--fail-fast"]]
    scenarios = sorted(f for f in os.listdir(os.path.join(TREE, "Simulations")) if f.endswith(".json"))
    if scenarios and options.file_seeds != "0..0":
        budgets.append([concord, "simulate"] + [os.path.join(TREE, "Simulations", f) for f in scenarios]
                       + ["--seeds", options.file_seeds, "--jobs", str(options.jobs), "--fail-fast"])
    scratch = os.path.join(TREE, ".build", "mutant-runs")
    os.makedirs(scratch, exist_ok=True)
    for budget in budgets:
        status, output = run_command(budget, scratch, options.timeout)
        if status is None:
            return "hang"
        if status != 0:
            errors = [l for l in output.splitlines() if l.startswith("Error:") and l not in excused]
            if not errors and any(l in excused for l in output.splitlines()):
                continue
            return errors[0] if errors else output.strip()[-200:]
    return None


def check_baseline(options):
    """The budget must pass on the unmutated build, or every verdict would be a false catch."""
    status, output = run_command(BUILD, TREE, 1800)
    if status != 0:
        sys.exit("The unmutated tree does not build:\n" + output[-2000:])
    shortfalls = set()
    while True:
        failure = run_budget(options, frozenset(shortfalls))
        if failure is None:
            return frozenset(shortfalls)
        if not SHORTFALL.match(failure) or failure in shortfalls:
            sys.exit(f"The unmutated build fails the budget, so no mutant can be judged: {failure}")
        print(f"The unmutated build falls short, so mutants are excused it: {failure}", flush=True)
        shortfalls.add(failure)


def write_results(results):
    """Writes the verdicts of `results` into the table, keeping the verdicts of listed mutants this run
    did not judge (so `--only` re-runs some, and an interrupted run keeps what it found)."""
    listed = {m[0] for m in read_list()}
    rows = {}
    if os.path.exists(RESULTS):
        with open(RESULTS, encoding="utf-8") as handle:
            next(handle, None)
            for raw in handle:
                fields = raw.rstrip("\n").split("\t")
                if fields[0].isdigit() and int(fields[0]) in listed:
                    rows[int(fields[0])] = "\t".join(fields)
    for (mid, path, number, rule, _, before, after, _), verdict, detail in results:
        rows[mid] = f"{mid}\t{path}\t{number}\t{rule}\t{before}\t{after}\t{verdict}\t{detail}"
    with open(RESULTS, "w", encoding="utf-8") as handle:
        handle.write("id\tfile\tline\trule\tbefore\tafter\tverdict\tdetail\n")
        for mid in sorted(rows):
            handle.write(rows[mid] + "\n")


def run(options):
    mutants = list(read_list())
    if options.only:
        wanted = {int(x) for x in options.only.split(",")}
        mutants = [m for m in mutants if m[0] in wanted]
    if options.limit:
        mutants = mutants[: options.limit]
    prepare_tree()
    options.excused = check_baseline(options)
    results = []
    for index, mutant in enumerate(mutants, 1):
        started = time.time()
        verdict, detail = try_mutant(mutant, options)
        results.append((mutant, verdict, detail))
        mid, path, number, rule, _, before, after, _ = mutant
        print(f"[{index}/{len(mutants)}] #{mid} {path}:{number} {rule} '{before.strip()}'->'{after.strip()}': "
              f"{verdict} ({time.time() - started:.0f} s) {detail}", flush=True)
        write_results(results)
    counted = [r for r in results if r[1] in ("caught", "survived")]
    caught = sum(1 for r in counted if r[1] == "caught")
    print(f"\n{caught} of {len(counted)} built mutants caught by the simulator alone"
          + (f" ({100.0 * caught / len(counted):.1f}%)" if counted else "")
          + f"; {sum(1 for r in results if r[1] == 'not built')} not built, "
          + f"{sum(1 for r in results if r[1] == 'stale')} stale. Table: {os.path.relpath(RESULTS, ROOT)}")
    for (mid, path, number, rule, _, before, after, source), verdict, _ in results:
        if verdict == "survived":
            print(f"  survived #{mid} {path}:{number} {rule}: {source}")
    return 0


def score():
    """Counts the table's verdicts: caught, survived, not built and stale, and the share caught of those built."""
    with open(RESULTS, encoding="utf-8") as handle:
        next(handle, None)
        verdicts = [raw.rstrip("\n").split("\t")[6] for raw in handle if raw.strip()]
    listed = sum(1 for _ in read_list())
    counts = {v: verdicts.count(v) for v in ("caught", "survived", "not built", "stale")}
    built = counts["caught"] + counts["survived"]
    print(f"{len(verdicts)} of {listed} listed mutants judged: {counts['caught']} caught, {counts['survived']} survived, "
          f"{counts['not built']} not built, {counts['stale']} stale; the simulator alone catches "
          f"{counts['caught']} of {built} built" + (f" ({100.0 * counts['caught'] / built:.1f}%)" if built else ""))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="write Papers/mutants.tsv from the rule")
    runner = sub.add_parser("run", help="apply each mutant, build, simulate, report")
    runner.add_argument("--only", help="comma-separated mutant ids")
    runner.add_argument("--limit", type=int, help="the first N mutants (after --only)")
    runner.add_argument("--seeds", type=seeds, default="1..30", help="seeds of the default scenario (1..30)")
    runner.add_argument("--file-seeds", type=seeds, default="1..40",
                        help="seeds of each scenario file (1..40, what .ci/run simulates)")
    runner.add_argument("--jobs", type=int, default=2)
    runner.add_argument("--timeout", type=int, default=900, help="seconds before a simulate run counts as a hang")
    sub.add_parser("score", help="the simulator-alone score of the verdicts in Papers/mutants-results.tsv")
    options = parser.parse_args()
    if options.command == "score":
        return score()
    if options.command == "list":
        rows = generate()
        write_list(rows)
        by_rule = {}
        for row in rows:
            by_rule[row[3]] = by_rule.get(row[3], 0) + 1
        print(f"{len(rows)} mutants in {len(FILES)} files: "
              + ", ".join(f"{count} {rule}" for rule, count in sorted(by_rule.items()))
              + f" -> {os.path.relpath(LIST, ROOT)}")
        return 0
    return run(options)


if __name__ == "__main__":
    sys.exit(main())
