"""The flake8 adapter: a thin shell over the analysis core.

flake8 hands us the decoded source (``lines``, the unsaved buffer under an editor) and
the ``ast`` tree it already parsed; we never reopen the file. The trigger prefilter
runs first on plain data, so a file that cannot hold a finding costs no LibCST import
and no parse, and only the rules its triggers name are imported. Any failure is
contained here: one exception escaping ``run()`` would abort flake8's whole run, for
every file.

The cycle collector is paused while the analysis is imported and while it analyses a
file: its modules are tens of thousands of objects that live as long as the process, and
each lint allocates as many that reference counting frees. Scanned young and promoted,
they set off full collections of everything flake8 holds, which a one-file run
(``flake8 -`` under an editor) would otherwise never pay. A file that no rule's triggers
can match allocates next to nothing: it is done before the collector is paused.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator

from .runtime import collector

with collector.paused():
    from . import __version__, flake8_settings, prefilter
    from ._triggers import RULE_TRIGGERS
    from .analysis.project import files_alone, let_go_of_summaries, no_disk_cache
    from .analysis.summary import ModuleSummary

# A child of flake8's logger, so that ``flake8 -v`` shows which files were skipped.
LOG = logging.getLogger("flake8.tensorcopy")


class TensorCopyChecker:
    name = "flake8-tensorcopy"
    version = __version__
    triggers = tuple(spec for spec in RULE_TRIGGERS if spec.enabled_by_default)
    # What the table and flake8's options choose (flake8_settings.py); set by parse_options,
    # on the class, as flake8's workers are forked (or parse the options again). None: the
    # checker runs outside flake8's option parsing, with the rules on by default.
    settings: flake8_settings.PluginSettings | None = None

    def __init__(self, tree: ast.Module, lines: list[str], filename: str = "-") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option(
            "--tensorcopy-no-cache", action="store_true", parse_from_config=True,
            help="flake8-tensorcopy: neither read nor write the cache of what the project's other "
            "modules answered (.tensorcopy_cache in the project's root)",
        )
        manager.add_option(
            "--tensorcopy-no-project", action="store_true", parse_from_config=True,
            help="flake8-tensorcopy: read each file alone, not the project's other modules nor the "
            "callers in the modules that import it (as project = false in [tool.flake8-tensorcopy])",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        if getattr(options, "tensorcopy_no_cache", False):
            no_disk_cache()
        if getattr(options, "tensorcopy_no_project", False):
            files_alone()
        settings = TensorCopyChecker.settings = flake8_settings.load(options)
        if _forks_workers(options):
            # flake8 forks its workers once the options are parsed: imported now, the engine
            # and the chosen rules are shared by all of them instead of imported by each.
            with collector.paused():
                from .engine import rules_for

                rules_for(settings.chosen.codes)

    def _triggers(self) -> tuple:
        """This file's triggers: the rules the settings choose for it."""
        if self.settings is None:
            return self.triggers
        codes = self.settings.codes_for(self.filename)
        return tuple(spec for spec in RULE_TRIGGERS if spec.code in codes)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        try:
            findings = self._findings()
        except Exception as error:  # a bug of ours must not cost the user their whole flake8 run
            from .engine import AnalysisError

            if isinstance(error, AnalysisError):
                LOG.info("flake8-tensorcopy skipped %s: %s", self.filename, error)
            else:
                LOG.warning("flake8-tensorcopy failed on %s; please report it", self.filename, exc_info=True)
            return
        for finding in findings:
            yield finding.line, finding.col, finding.message, type(self)

    def _findings(self) -> list:
        triggers = self._triggers()
        if not triggers:
            return []
        source = prefilter.normalise_newlines("".join(self.lines))
        triggers = prefilter.may_trigger(source, triggers)
        if not triggers:  # most files: no summary, no project, nothing allocated to pause for
            return []
        with collector.paused():
            try:
                return self._analysed(source, triggers)
            finally:
                let_go_of_summaries()  # not walked by flake8's collections while it works on

    def _analysed(self, source: str, triggers: tuple) -> list:
        summary = ModuleSummary.of(self.tree, source, self.filename)
        try:
            plan = prefilter.plan(source, triggers, summary, fixes=False)  # flake8 shows no fixes
            if not plan.needs_parse:  # nothing to analyse: the rules need not even be imported
                self._log_skipped(plan.skipped)
                return []
            from .engine import AnalysisError, Planned, lint_plan, rules_for

            codes = (spec.code for spec in triggers if plan.runs(spec.code))  # the others' modules stay unimported
            planned = Planned(source, self.tree, summary, plan, tuple(rules_for(codes)))
            try:
                return lint_plan(planned)
            except AnalysisError as error:  # the parts that could be analysed still count
                self._log_skipped([str(error).removeprefix("not analysed: ")])
                return error.findings
        finally:
            summary.forget_facts()  # freed now, not by the cycle collector under later files' peak

    def _log_skipped(self, reasons) -> None:
        if reasons:  # one line per file, shown by `flake8 -v`
            LOG.info("flake8-tensorcopy skipped part of %s: %s", self.filename, "; ".join(reasons))


def _forks_workers(options) -> bool:
    """Whether flake8 will likely lint in forked workers: more than one job, on more than
    one file or on a folder, where processes fork (flake8's own test is on the files found)."""
    import multiprocessing
    import os

    jobs = getattr(options, "jobs", None)
    # the method set, else the platform's default (listed first): fork on Linux before 3.14
    method = multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_all_start_methods()[0]
    if jobs is None or method != "fork":
        return False
    count = (os.cpu_count() or 1) if jobs.is_auto else jobs.n_jobs
    names = [name for name in getattr(options, "filenames", None) or ["."] if name != "-"]
    return count > 1 and (len(names) > 1 or any(os.path.isdir(name) for name in names))


class _OptInChecker(TensorCopyChecker):
    """One opt-in rule: flake8 runs it only when asked, ``--enable-extensions TCPnnn``.

    flake8's own mechanism for codes that are off by default: a plugin class with
    ``off_by_default = True`` under an entry point named by the code (pyproject.toml).
    """

    off_by_default = True
    add_options = parse_options = None  # the main checker's options serve every code

    def _triggers(self) -> tuple:
        """Its rule, unless the main checker runs it already or the table drops it here."""
        if self.settings is None or self.settings.runs_opt_in(self.triggers[0].code, self.filename):
            return self.triggers
        return ()


def _opt_in(code: str) -> type[_OptInChecker]:
    triggers = tuple(spec for spec in RULE_TRIGGERS if spec.code == code and not spec.enabled_by_default)
    return type(f"{code}Checker", (_OptInChecker,), {"triggers": triggers, "__module__": __name__})


TCP004Checker = _opt_in("TCP004")
TCP005Checker = _opt_in("TCP005")
TCP006Checker = _opt_in("TCP006")
TCP007Checker = _opt_in("TCP007")
TCP008Checker = _opt_in("TCP008")
TCP009Checker = _opt_in("TCP009")
TCP010Checker = _opt_in("TCP010")
TCP011Checker = _opt_in("TCP011")
TCP012Checker = _opt_in("TCP012")
