"""hetla.bench: the CLI's benchmark, returning its JSON records as dicts."""
import json
import os
import shutil
import subprocess


def _cli():
    """The `hetla` executable: $HETLA_CLI, then beside this package (build tree or install prefix), then PATH."""
    if os.environ.get("HETLA_CLI"):
        return os.environ["HETLA_CLI"]
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../../tools/hetla",            # build tree: build/python/hetla -> build/tools/hetla
                "../../../../bin/hetla",        # prefix/lib/python3/dist-packages/hetla -> prefix/bin
                "../../../../../bin/hetla"):    # prefix/lib/python3.X/site-packages/hetla -> prefix/bin
        path = os.path.normpath(os.path.join(here, rel))
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("hetla")
    if not found:
        raise FileNotFoundError("hetla.bench: the hetla command was not found (set HETLA_CLI)")
    return found


def bench(routine, n=None, **options):
    """Runs ``hetla bench ROUTINE --json`` and returns its records (a list of dicts, the CLI's JSON keys).

    Options map to flags: ``n=4000`` -> ``-n 4000``, ``baseline=True`` -> ``--baseline``,
    ``devices="cpu,emu"`` -> ``--devices cpu,emu``. Raises RuntimeError with the CLI's message on an error.
    """
    args = [_cli(), "bench", routine, "--json"]
    if n is not None:
        args += ["-n", str(n)]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is not False and value is not None:
            args += [flag, str(value)]
    proc = subprocess.run(args, capture_output=True, text=True)
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip().startswith("{")]
    errors = [r["error"] for r in records if "error" in r]
    if proc.returncode != 0 or errors:
        raise RuntimeError("hetla bench: " + (errors[0] if errors else proc.stderr.strip() or f"exit {proc.returncode}"))
    return records
