"""The lab's packages, found rather than listed: this folder is the package npc_lab (package-dir in
pyproject.toml), so each folder below it is a subpackage under that prefix (a data folder such as
evaluate/prompts too, as setuptools wants of package data), which pyproject.toml's own
`packages.find` cannot give. `script_name` names this script, for setuptools to leave it out of the
wheel: under a PEP 517 backend it would take the backend's for it."""

from setuptools import find_namespace_packages, setup

LEFT_OUT = ["build*", "dist*", "*__pycache__*"]

# A PEP 517 backend runs this script from its own folder, where these relative names resolve.
setup(script_name="setup.py",
      packages=["npc_lab", *(f"npc_lab.{name}" for name in find_namespace_packages(".", exclude=LEFT_OUT))])
