"""constraints.txt, the lock the README's commands and CI install with (`pip install -e . -c constraints.txt`),
cannot drift from pyproject.toml: every requirement of the app and of its test extra has an exact pin there,
and the pin satisfies the requirement's range. Fast and offline: reads the two files."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints.txt"
LOCKED_EXTRAS = ("test",)  # the `llama` extra is outside the lock (its header says so)


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, raw in enumerate(LOCK.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==" and not requirement.marker, (
            f"constraints.txt:{number}: {raw!r} is not an exact pin (name==version)"
        )
        name = canonicalize_name(requirement.name)
        assert name not in pins, f"constraints.txt:{number}: {requirement.name} is pinned twice"
        pins[name] = Version(specifiers[0].version)
    return pins


def _requirements() -> list[tuple[str, Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [("dependencies", Requirement(text)) for text in project["dependencies"]]
    for extra in LOCKED_EXTRAS:
        found += [(f"[{extra}]", Requirement(text)) for text in project["optional-dependencies"][extra]]
    return found


def test_the_lock_pins_every_package_exactly_once() -> None:
    assert len(_pins()) > 100  # the app and its test extra, with everything they pull in


@pytest.mark.parametrize(("where", "requirement"), _requirements(), ids=lambda value: str(value))
def test_every_requirement_has_a_pin_that_satisfies_it(where: str, requirement: Requirement) -> None:
    if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
        pytest.skip(f"{requirement} does not apply here")
    pins = _pins()
    name = canonicalize_name(requirement.name)
    assert name in pins, (
        f"{requirement} ({where} in pyproject.toml) has no pin in constraints.txt: regenerate it (its header says how)"
    )
    assert requirement.specifier.contains(pins[name], prereleases=True), (
        f"constraints.txt pins {requirement.name}=={pins[name]}, outside {requirement} ({where} in pyproject.toml): "
        "regenerate it (its header says how)"
    )


def _project_installs(lines: list[str]) -> list[str]:
    return [part.strip() for line in lines for part in line.split("&&") if re.search(r"pip install .*-e ", part)]


def test_the_install_commands_use_the_lock() -> None:
    """The README's run and test commands and .ci/run install the project (and, in .ci/llama, which both run last,
    its llama extra) with the lock."""
    readme = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("python3 -m venv")]
    commands = _project_installs(readme)
    ci = _project_installs((ROOT / ".ci" / "run").read_text().splitlines())
    llama = _project_installs((ROOT / ".ci" / "llama").read_text().splitlines())
    # the run command's install, the test command's; .ci/run's; the llama extra's
    assert len(commands) == 2 and len(ci) == 1 and len(llama) == 1, (commands, ci, llama)
    assert readme[-1].endswith("&& bash .ci/llama") and "exec bash .ci/llama" in (ROOT / ".ci" / "run").read_text()
    commands += llama
    for command in commands + ci:
        assert command.endswith("-c constraints.txt"), command
