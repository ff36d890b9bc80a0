"""The suite's time per area, as docs/code-map.md keeps it, from a pytest JUnit XML report.

    ./dev test --junitxml=/tmp/suite.xml && .venv/bin/python tools/suite_times.py /tmp/suite.xml

An area is a folder under tests/; the files at its root are each their own area when they take
``--alone`` seconds or more (default 20), and together "other tests/*.py" otherwise. A test's time
is its setup, call and teardown, so a shared fixture counts where it was first built.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import Counter


def areas(report: str, alone: float) -> tuple[Counter, Counter]:
    """(seconds, tests) per area of the JUnit XML ``report``."""
    seconds, tests, files = Counter(), Counter(), Counter()
    cases = [(case.get("classname", ""), float(case.get("time") or 0)) for case in ET.parse(report).iter("testcase")]
    for name, spent in cases:
        files[name] += spent
    for name, spent in cases:
        parts = name.split(".")
        if len(parts) > 2:
            area = f"tests/{parts[1]}/"
        elif files[name] >= alone:
            area = f"tests/{parts[-1]}.py"
        else:
            area = "other tests/*.py"
        seconds[area] += spent
        tests[area] += 1
    return seconds, tests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--alone", type=float, default=20.0)
    args = parser.parse_args()
    seconds, tests = areas(args.report, args.alone)
    print("| area | tests | seconds | share |\n|---|---:|---:|---:|")
    total = sum(seconds.values())
    for area, spent in seconds.most_common():
        print(f"| `{area}` | {tests[area]:,} | {spent:,.0f} | {spent / total:.0%} |")
    print(f"| **all** | **{sum(tests.values()):,}** | **{total:,.0f}** | |")


if __name__ == "__main__":
    main()
