"""config.load never raises and always returns a complete, valid config (hypothesis).

What is tried:
- random JSON-ish values (null, bools, ints, floats, text, lists, objects),
  both free-form and shaped like the schema (its sections and keys with values
  of any type, and some typos), written to config.json and loaded, with and
  without a good copy;
- the example config.json with random bytes flipped, inserted, deleted or cut
  off;
- normalize: a ValueError of one line naming a field, or a config that
  normalizes to itself; set_path with random text on every key; redact never
  lets a secret through.
"""

import json
import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_tools import ROOT, firmware_path

firmware_path()
import config  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "config.json")
with open(EXAMPLE, "rb") as _f:
    EXAMPLE_BYTES = _f.read()
GOOD = config.normalize(json.loads(EXAMPLE_BYTES))

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _leaves(schema=config.SCHEMA, prefix=""):
    for e in schema:
        if e[1] == config.T_OBJ:
            yield from _leaves(e[6], prefix + e[0] + ".")
        else:
            yield prefix + e[0], e


LEAVES = dict(_leaves())
SECRETS = [p for p, e in LEAVES.items() if e[5] & config.F_SECRET]

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.integers(-2, 70000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(
        ["", "all", "spot", "white", "three_cushion", "***", "aa:bb:cc:dd:ee:ff", "ab" * 32, "point", "carom/", "wall"]
    )
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _key_names(schema):
    out = []
    for e in schema:
        out.append(e[0])
        if e[1] == config.T_OBJ:
            out.extend(_key_names(e[6]))
    return out


KEYS = st.sampled_from(sorted(set(_key_names(config.SCHEMA)))) | st.text(max_size=6)


@st.composite
def shaped(draw, schema=config.SCHEMA):
    """An object with the schema's keys (most of them), values of any type,
    sections shaped the same way, now and then a typo."""
    out = {}
    for e in schema:
        if not draw(st.booleans()):
            continue
        if e[1] == config.T_OBJ and draw(st.integers(0, 4)):
            out[e[0]] = draw(shaped(e[6]))
        elif draw(st.integers(0, 2)):
            out[e[0]] = draw(_valid_ish(e))
        else:
            out[e[0]] = draw(JSONISH)
    if draw(st.integers(0, 9)) == 0:
        out[draw(KEYS)] = draw(SCALARS)
    return out


def _valid_ish(e):
    kind, lo, hi = e[1], e[3], e[4]
    if kind == config.T_INT:
        return st.integers(lo - 2, hi + 2) | st.none()
    if kind == config.T_BOOL:
        return st.booleans()
    if kind == config.T_CHOICE:
        return st.sampled_from(e[6])
    if kind == config.T_ACTIONS:
        return st.just("all") | st.lists(st.sampled_from(config.ACTIONS + ("nope",)), max_size=4)
    if kind == config.T_HEX:
        return st.text("0123456789abcdefABCDEFx", min_size=2 * lo - 1, max_size=2 * lo + 1) | st.none()
    if kind == config.T_MAC:
        return st.text("0123456789abcdef:", min_size=11, max_size=18) | st.none()
    return st.text(max_size=hi + 2)


def _check_result(result, source="config.json"):
    cfg, code, msg = result
    assert code in (0, config.ERROR_CONFIG, config.ERROR_CONFIG_DEFAULTS)
    assert cfg == config.normalize(cfg)  # complete and valid
    assert set(cfg) == set(e[0] for e in config.SCHEMA)
    if code:
        assert type(msg) is str and "\n" not in msg and msg.startswith(source), msg
    else:
        assert msg is None
    return cfg, code, msg


def _load_bytes(raw, with_good):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "config.json")
        if with_good:
            with open(os.path.join(d, "config.good.json"), "wb") as f:
                f.write(EXAMPLE_BYTES)
        with open(path, "wb") as f:
            f.write(raw)
        result = _check_result(config.load(path), path)
        assert not os.path.exists(path + ".tmp")
        with open(path, "rb") as f:
            assert f.read() == raw  # load never changes config.json
        return result


@SETTINGS
@given(JSONISH | shaped(), st.booleans())
def test_load_random_json_never_raises(value, with_good):
    raw = json.dumps(value).encode()
    cfg, code, msg = _load_bytes(raw, with_good)
    try:
        expected = config.normalize(value)
    except ValueError:
        expected = None
    if expected is not None and len(raw) <= config.MAX_BYTES:
        assert (cfg, code) == (expected, 0)
    else:
        assert code == (config.ERROR_CONFIG if with_good else config.ERROR_CONFIG_DEFAULTS)
        assert cfg == (GOOD if with_good else config.defaults())


@st.composite
def corrupted(draw):
    raw = bytearray(EXAMPLE_BYTES)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "cut", "zero"]))
        i = draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            raw[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del raw[i : i + draw(st.integers(1, 8))]
        elif op == "cut":
            del raw[i:]
        else:
            raw[i : i + 16] = bytes(len(raw[i : i + 16]))
    return bytes(raw)


@SETTINGS
@given(corrupted(), st.booleans())
def test_load_corrupted_bytes_never_raises(raw, with_good):
    cfg, code, msg = _load_bytes(raw, with_good)
    if code == 0:  # still valid (e.g. a flipped letter in a name)
        assert cfg == config.normalize(json.loads(raw))
    elif code == config.ERROR_CONFIG:
        assert with_good and cfg == GOOD
    else:
        assert not with_good and cfg == config.defaults()


@SETTINGS
@given(JSONISH | shaped())
def test_normalize_names_a_field_or_is_a_fixed_point(value):
    try:
        cfg = config.normalize(value)
    except ValueError as e:
        msg = str(e)
        assert "\n" not in msg and msg.startswith("config.json: ") and len(msg) < 400, msg
        return
    assert config.normalize(cfg) == cfg
    assert json.loads(json.dumps(cfg)) == cfg  # plain JSON data


@SETTINGS
@given(st.sampled_from(sorted(LEAVES)), st.text(max_size=70) | st.sampled_from(["on", "off", "null", "all", "7"]))
def test_set_path_random_text(path, text):
    before = json.dumps(GOOD)
    try:
        new = config.set_path(GOOD, path, text)
    except ValueError as e:
        assert "\n" not in str(e) and str(e).startswith("config.json: "), str(e)
    else:
        v = config.normalize(new)
        for key in path.split("."):
            v = v[key]
        assert config.get_path(new, path) == v
        if LEAVES[path][1] == config.T_TEXT:
            assert v == text  # a string is taken as it is typed
    assert json.dumps(GOOD) == before


@SETTINGS
@given(shaped(), st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=3))
def test_redact_never_lets_a_secret_through(value, secrets):
    for i, path in enumerate(SECRETS):
        section, key = path.split(".")
        if not isinstance(value.get(section), dict):
            value[section] = {}
        value[section][key] = "S3CR3T-" + secrets[i % len(secrets)]
    text = json.dumps(config.redact(value))
    assert "S3CR3T-" not in text
    try:  # nor through an error message
        config.normalize(value)
    except ValueError as e:
        assert "S3CR3T-" not in str(e), str(e)
