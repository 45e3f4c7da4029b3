"""The benchmarks' regression gate (Scripts/bench_support.check_regressions) against the real BENCHMARKS.md table:
every gated figure is one a script produces, figures within the spread pass, one worse than it fails naming it, and
a gated figure a run did not produce fails."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Scripts"))
import bench_support  # noqa: E402


def gated():
    """(figure, script, recorded, spread, better) rows of BENCHMARKS.md's gate table."""
    lines = (ROOT / "BENCHMARKS.md").read_text().splitlines()
    start = lines.index(bench_support.GATE_MARKER)
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        if not set(cells[0]) <= set("-"):
            rows.append((cells[0], cells[1], float(cells[2]), float(cells[3]), cells[4]))
    return rows


def test_every_gated_figure_is_one_its_script_produces():
    rows = gated()
    assert {script for _, script, _, _, _ in rows} == set(SCRIPTS)
    for figure, script, _, spread, better in rows:
        assert better in ("higher", "lower") and spread > 0, figure
        source = (ROOT / script).read_text()
        # Written literally in Scripts/benchmark; built from the kind in Scripts/benchmark-writes; in
        # Scripts/benchmark-postgres from the kind, which is built from the number in flight.
        kind = re.sub(r" grouped / alone$", "", figure)
        write = re.match(r"(.*) \((16|64) (in flight|connections)\) PostgreSQL / SQLite$", figure)
        assert (f'"{figure}"' in source or (f'"{kind}"' in source and "grouped / alone" in source)
                or (write and f'"{write.group(1)} ({{in_flight}} {write.group(3)})"' in source.replace("f\"", "\"")
                    and "PostgreSQL / SQLite" in source)), figure


SCRIPTS = ["Scripts/benchmark", "Scripts/benchmark-writes", "Scripts/benchmark-postgres", "Scripts/benchmark-devices",
           "Scripts/benchmark-trust"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_figures_within_the_spread_pass_and_a_worse_one_fails(script, capsys):
    rows = [row for row in gated() if row[1] == script]
    at_limit = {figure: recorded - spread * 0.9 if better == "higher" else recorded + spread * 0.9
                for figure, _, recorded, spread, better in rows}
    bench_support.check_regressions(script, at_limit)
    assert f"{len(rows)} figures of {script} within" in capsys.readouterr().out

    figure, _, recorded, spread, better = rows[0]
    worse = dict(at_limit)
    worse[figure] = recorded - spread * 1.5 if better == "higher" else recorded + spread * 1.5
    with pytest.raises(SystemExit) as failure:
        bench_support.check_regressions(script, worse)
    assert figure in str(failure.value) and "REGRESSION" in str(failure.value)

    missing = dict(at_limit)
    del missing[figure]
    with pytest.raises(SystemExit) as failure:
        bench_support.check_regressions(script, missing)
    assert f"{figure}: not measured by this run" in str(failure.value)
