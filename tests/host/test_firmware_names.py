"""The firmware's names, read from the source (app.py imports machine, and startup.py imports
app.py: they are read, not imported): each error code has one home, the fallback hardware is
the wall board's, and no module uses another's private names."""

import ast
import json
import os

from host_tools import firmware_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _assignments(module):
    tree = ast.parse(open(os.path.join(firmware_path(), module + ".py")).read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "const":
                value = value.args[0]
            try:
                out[node.targets[0].id] = ast.literal_eval(value)
            except ValueError:
                pass
    return out


def test_the_error_codes_and_timings_are_named_in_errorcodes_only():
    """errorcodes.py is the table of the "E nn" codes and of the running board's timings: the
    modules that show a code or keep a timing import it from there (the build compiles it in),
    none names one again."""
    names = _assignments("errorcodes")
    table = {name: value for name, value in names.items() if name.startswith("ERROR_")}
    assert table["ERROR_MEMORY"] == 24 and table["ERROR_STORE"] == 23 and table["ERROR_CHIP"] == 70  # the docs' pages
    codes = list(table.values())
    assert len(codes) == len(set(codes)), table
    again = []
    for name in sorted(os.listdir(firmware_path())):
        if name.endswith(".py") and name != "errorcodes.py":
            module = name[:-3]
            for n in _assignments(module):
                if n.lstrip("_") in table or (module in ("app", "app_cold", "startup") and n.lstrip("_") in names):
                    again.append("%s.%s" % (module, n))
    assert not again, again


def test_fallback_buses_and_14_segment_chips_are_the_wall_boards():
    names = _assignments("startup")
    wall = json.load(open(os.path.join(ROOT, "boards", "wall.json")))
    assert sorted(names["_FALLBACK_BUSES"]) == sorted((b["bus"], b["scl"], b["sda"]) for b in wall["i2c"])
    seg14 = [(d.get("bus", 0), int(d["addr"], 16)) for d in wall["displays"] if d["kind"] == "seg14"]
    assert sorted(names["_FALLBACK_SEG14"]) == sorted(seg14)


# A cold half works on its hot twin's private state: one class in two files, so that the
# rarely used half can leave RAM (cold.py). Only these pairs share underscore names.
COLD_HALVES = {
    "rules_setup": "rules",
    "rules_events": "rules",
    "formats": "rules",
    "formats_rare": "rules",
    "formats_wall": "view",
    "rules_logback": "rules",
    "rules_state": "rules",
    "rules_innings": "rules",
    "store_snapshot": "store",
    "store_journal": "store",
    "store_checkpoint": "store",
    "store_history": "store",
    "store_reportfile": "store",
    "store_files": "store",
    "app_cold": "app",
    "view_setup": "view",
    "config_edit": "config",
}


def test_no_module_uses_another_modules_private_names():
    folder = firmware_path()
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        module = name[:-3]
        tree = ast.parse(open(os.path.join(folder, name)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module != COLD_HALVES.get(module):
                found += [
                    "%s: from %s import %s" % (module, node.module, a.name)
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
            if (
                module not in COLD_HALVES
                and isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append("%s: %s.%s" % (module, ast.unparse(node.value), node.attr))
    assert not found, found
