"""`glory-ai tune CONFIG`: a balance study (docs/tuning.md). CONFIG is a study config file or
the name of a shipped study (experiments/tuning/NAME.toml in the source tree,
glory_ai/tune/shipped/NAME.toml in a wheel). User mistakes print one line and exit with
status 2; Ctrl-C exits with 130 and SIGTERM with 143, the finished games and trials kept."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from .. import _argparse as argtypes
from .._argparse import EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_USAGE, run_entry_point
from .._jsonio import MAX_BYTES
from .._reading import read_text
from ..arena.runner import BACKENDS

__all__ = ["find_study", "main", "main_tune", "register", "shipped_studies"]

SHIPPED_PACKAGE_FOLDER = "shipped"


def shipped_studies_folder() -> Path | None:
    """The shipped study configs: the package's copy in a wheel, else experiments/tuning/."""
    from importlib import resources

    packaged = resources.files(__package__).joinpath(SHIPPED_PACKAGE_FOLDER)
    if packaged.is_dir():
        return Path(str(packaged))
    tree = Path(__file__).resolve().parents[2]
    if (tree / "pyproject.toml").is_file() and (tree / "experiments" / "tuning").is_dir():
        return tree / "experiments" / "tuning"
    return None


def shipped_studies() -> list[str]:
    folder = shipped_studies_folder()
    return sorted(p.stem for p in folder.glob("*.toml")) if folder is not None else []


def find_study(given: str) -> Path:
    """The study config a command names: an existing file, else a shipped study's name."""
    from .errors import TuneError

    path = Path(given)
    if path.exists() or not given.strip():
        return path
    if path.parent.as_posix() in (".", "experiments/tuning") and path.suffix in ("", ".toml"):
        for folder in (Path("experiments") / "tuning", shipped_studies_folder()):
            if folder is not None and (folder / f"{path.stem}.toml").is_file():
                return folder / f"{path.stem}.toml"
    names = shipped_studies()
    known = f"; the shipped studies: {', '.join(names)}" if names else ""
    raise TuneError(f"{given}: no such file{known}")


def _error(exc: BaseException) -> int:
    from ..arena.storage import os_error

    if isinstance(exc, OSError):
        exc = os_error(exc.filename or "output", exc)
    print(f"glory-ai: error: {' '.join(str(exc).split())}", file=sys.stderr)
    return EXIT_USAGE


class _Bar:
    """The study's progress: trials ended, the deals of the trial in play, the best so far."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, unit="trial", desc="tune", dynamic_ncols=True, leave=True)
        self.best = ""

    def line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
            if ": loss " in text or "stopped after" in text or "refused" in text:
                self.bar.update(1)
            if ": loss " in text:
                loss = float(text.split(": loss ")[1].split()[0].rstrip(","))
                if not self.best or loss < float(self.best):
                    self.best = f"{loss:.4g}"
                    self.bar.set_postfix(best=self.best)
        else:
            print(text, flush=True)

    def deals(self, trial: int, deals: int) -> None:
        if self.bar is not None:
            self.bar.set_description(f"tune: trial {trial}, {deals} deals")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def main_tune(args: argparse.Namespace) -> int:
    from ..arena.runner import RunInterrupted, Terminated, sigterm_interrupts
    from .config import load_tune_config
    from .runner import run_tune

    options = {
        k: v
        for k, v in (
            ("jobs", args.jobs),
            ("backend", args.backend),
            ("scheduler", args.scheduler),
            ("batch_size", args.batch_size),
        )
        if v is not None
    }
    try:
        path = find_study(args.config)
        config = load_tune_config(path)
    except (ValueError, OSError) as exc:
        return _error(exc)
    folder = Path(args.out) if args.out else Path(args.results) / config.name
    bar = _Bar(not args.no_progress and sys.stderr.isatty(), args.trials or config.trials)
    try:
        with sigterm_interrupts():
            outcome = run_tune(
                config,
                folder,
                options=options,
                fresh=args.fresh,
                trials=args.trials,
                log_line=bar.line,
                progress=bar.deals,
            )
    except BrokenPipeError:
        raise
    except (ValueError, OSError) as exc:
        bar.close()
        return _error(exc)
    except KeyboardInterrupt as exc:
        bar.close()
        terminated = isinstance(exc, Terminated) or (isinstance(exc, RunInterrupted) and exc.terminated)
        print(
            f"glory-ai: {'terminated' if terminated else 'interrupted'}; the finished trials and games "
            "are kept: run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    bar.close()
    print(
        f"results in {outcome.folder}/ (README.md, report.html, validation.csv, study.db, manifest.json) "
        f"in {outcome.seconds / 60:.1f} minutes"
    )
    for line in read_text(outcome.readme, "a README", MAX_BYTES).splitlines():
        if line.startswith("**Answer.**") or line.startswith("* ") and "best variants" not in line:
            print(line)
            if line.startswith("**Answer.**"):
                break
    return 0


def register(sub) -> None:
    formatter = argtypes.HelpFormatter
    tune = sub.add_parser(
        "tune",
        formatter_class=formatter,
        help="search rule variants for the one that balances the game, and prove it on fresh deals",
        description=textwrap.fill(
            "Run a balance study: an optuna search over the knobs of a study config (building "
            "materials, points, powers, copies, sizes), every variant played by the config's bots "
            "on the same deals, poor variants stopped early; then the best variants replayed on "
            "fresh deals against the published rules, each objective with its 95% interval and a "
            "Holm-adjusted p-value. Writes README.md (the answer in words), report.html, "
            "validation.csv and the optuna study (study.db) into results/NAME/. The same command "
            "resumes an interrupted study.",
            width=88,
        ),
        epilog="examples:\n  glory-ai tune catacomb\n"
        "  glory-ai tune experiments/tuning/catacomb.toml --jobs 2\n"
        "  glory-ai tune my_study.toml --trials 8 --out /tmp/quick\n",
    )
    tune.add_argument("config", metavar="CONFIG", help="a study config (TOML) or a shipped study's name")
    tune.add_argument(
        "--results", default="results", metavar="DIR", help="where the study's folder goes (DIR/NAME)"
    )
    tune.add_argument("--out", metavar="DIR", default=None, help="the study's folder (instead of DIR/NAME)")
    tune.add_argument(
        "--trials",
        type=argtypes.positive("trials"),
        default=None,
        metavar="N",
        help="end the search after N trials (default: the config's [search].trials)",
    )
    tune.add_argument(
        "--fresh",
        action="store_true",
        help="start over: move an existing study folder aside to NAME.old-N first",
    )
    argtypes.add_trust_option(tune)
    argtypes.add_scheduling_options(tune, BACKENDS, from_config=True)
    tune.set_defaults(func=main_tune)


def build_parser() -> argparse.ArgumentParser:
    parser = argtypes.Parser(prog="python3 -m glory_ai.tune.commands", formatter_class=argtypes.HelpFormatter)
    register(parser.add_subparsers(dest="command", required=True, parser_class=argtypes.Parser))
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_entry_point(build_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
