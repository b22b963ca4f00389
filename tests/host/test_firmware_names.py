"""Constants the firmware keeps twice: compiled in where the board runs them (private
const()s, no RAM), named where people and tools read them. Checked here from the source
(app.py imports machine, and startup.py imports app.py: they are read, not imported)."""

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


def test_app_and_startup_timings_and_error_codes_agree_with_their_names():
    """app.py and startup.py compile them in (private const()s); errorcodes.py names them."""
    names = _assignments("errorcodes")
    checked = 0
    for module in ("app", "appcold", "startup"):
        private = {name[1:]: value for name, value in _assignments(module).items()
                   if name.startswith("_") and name[1:].isupper() and (name.endswith("_MS") or "ERROR_" in name
                                                                         or name.startswith("_RADIO_"))}
        for name, value in private.items():
            assert names[name] == value, (module, name)
            checked += 1
    assert checked >= 18, checked
    assert names["ERROR_MEMORY"] == 24 and names["ERROR_STORE"] == 23  # the README's E 24 and E 23
    assert names["WDT_MS"] == _assignments("startup")["_WDT_MS"]


def test_every_error_code_named_outside_errorcodes_agrees_with_its_table():
    """errorcodes.py is the table of the "E nn" codes; the modules that stay in RAM (or whose
    imports would) name theirs again, compiled in: each must be the table's."""
    table = {name: value for name, value in _assignments("errorcodes").items() if name.startswith("ERROR_")}
    assert table["ERROR_MEMORY"] == 24 and table["ERROR_STORE"] == 23 and table["ERROR_CHIP"] == 70
    codes = list(table.values())
    assert len(codes) == len(set(codes)), table
    named = 0
    for module in ("startup", "app", "controller", "app_remote", "config", "configedit", "viewsetup"):
        for name, value in _assignments(module).items():
            if name.lstrip("_").startswith("ERROR_") and not name.endswith("_MS"):
                assert table[name.lstrip("_")] == value, (module, name)
                named += 1
    assert named >= 10, named


def test_fallback_buses_and_14_segment_chips_are_the_wall_boards():
    names = _assignments("startup")
    wall = json.load(open(os.path.join(ROOT, "boards", "wall.json")))
    assert sorted(names["_FALLBACK_BUSES"]) == sorted((b["bus"], b["scl"], b["sda"]) for b in wall["i2c"])
    seg14 = [(d.get("bus", 0), int(d["addr"], 16)) for d in wall["displays"] if d["kind"] == "seg14"]
    assert sorted(names["_FALLBACK_SEG14"]) == sorted(seg14)


# A cold half works on its hot twin's private state: one class in two files, so that the
# rarely used half can leave RAM (cold.py). Only these pairs share underscore names.
COLD_HALVES = {"matchsetup": "rules", "matchevents": "rules", "formats": "rules", "formatsrare": "rules", "formatwall": "view", "logback": "rules", "matchstate": "rules", "innings": "rules", "snapshot": "store", "journal": "store", "checkpoint": "store", "history": "store", "reportfile": "store", "storefiles": "store", "appcold": "app",
               "viewsetup": "view", "configedit": "config"}


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
                found += ["%s: from %s import %s" % (module, node.module, a.name) for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
            if (module not in COLD_HALVES and isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                found.append("%s: %s.%s" % (module, ast.unparse(node.value), node.attr))
    assert not found, found
