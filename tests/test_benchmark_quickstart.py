"""benchmarks.quickstart: the programs a run compiles are the entries it adds to jax's persistent cache, a warm run
compiles none, and the table holds what the runs measured."""

from pathlib import Path

from benchmarks.quickstart import Timing, compiled_programs, run_once, table


def test_compiled_programs_counts_the_cache_entries(tmp_path: Path) -> None:
    assert compiled_programs(tmp_path) == 0
    (tmp_path / "jax").mkdir()
    for name in ("jit_run-aa-cache", "jit_run-bb-cache", "jit_run-aa-atime", "other"):
        (tmp_path / "jax" / name).write_text("")
    assert compiled_programs(tmp_path) == 2


def test_a_cold_run_compiles_and_a_warm_one_does_not(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    extra = ["--ops", "Neg", "--kinds", "golden", "-j", "1"]
    cold, warm = run_once("cold", cache, extra), run_once("warm", cache, extra)
    assert cold.status == 0 and warm.status == 0, (cold.summary, warm.summary)
    assert cold.compiled >= 1 and warm.compiled == 0
    assert cold.summary.startswith("backend jax") and " 0 failed" in cold.summary
    assert cold.cpu > 0 and cold.wall > 0


def test_the_table_names_each_run_against_its_target() -> None:
    text = table([Timing("cold", 200.0, 350.5, 1790, 0, ""), Timing("warm", 40.0, 80.0, 0, 0, "")])
    assert "| cold | 200.0 | 180 | 350.5 | 1790 | 0 |" in text
    assert "| warm | 40.0 | 60 | 80.0 | 0 | 0 |" in text
