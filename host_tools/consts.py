"""The constants a firmware module takes from another, compiled into its .mpy by the build.

A constant has one home: `EQUALIZING = const(3)` is written in rules.py only, and the other
modules name it from there (`from rules import EQUALIZING`, or `rules.EQUALIZING` after
`import rules`). On CPython and on MicroPython running the source, that is a real import.
On the board it would cost a global in RAM and a lookup at run time, where a module's own
private constant (`_EQUALIZING = const(3)`) is compiled in by mpy-cross and costs nothing; so
the build (`build.build`) rewrites each module before mpy-cross has it:

    table = consts.collect()               # {"rules": {"EQUALIZING": 3, ...}, ...}
    text = consts.inline(source, table)    # the source, other modules' constants compiled in

collect() reads every firmware module's public `NAME = const(<int expression>)` at its top
level (the expression may use the module's constants above it and constants it imports; a
string's or bytes' const() as written too),
and the constants a module imports at its top level as its own (`from matchnames import
E_POINT` in rules.py: rules.E_POINT is one too). inline() then, for each constant a module
takes from another (`from X import NAME [as OTHER]`, or `X.NAME` where `import X` binds X):
- takes the name out of the import (the import goes when nothing is left of it: the module X
  is then not loaded for it), and `import X` goes when nothing but constants was read from it;
- defines `_NAME_FROM_X = const(value)` at the module's top (a private constant: compiled
  in, no RAM), on the line of its first statement;
- names the constant so wherever the import's name is read (ast: the uses the import binds,
  scope by scope; not an attribute's name, a keyword argument, a string or a comment).
A constant a module imports at its top level and never reads stays imported: it is there
to be the module's name too (matchnames.py's `from matchwords import MAX_TARGET`, which
rules.MAX_TARGET finds through rules.__getattr__). The lines stay where they are (a
traceback's line numbers are the source's). A name the module also binds another way in
the import's scope (assigned, an argument, imported again) is an error: the build stops
and says where, rather than guess.

On the board a module then has no global for a constant it imported and read: rules.E_POINT
works there through rules.__getattr__ (cold.forward), from the constant's home; nothing may
read such a name by string from the importer.
"""

import ast
import io
import os

from . import FIRMWARE_DIR


class ConstError(ValueError):
    pass


_OPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitXor: lambda a, b: a ^ b,
}
_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Invert: lambda a: ~a}


def _value(node, names, modules):
    """The value an expression of const() gives: an int from ints, names of constants (`names`),
    X.NAME of an imported module's (`modules`: {bound name: its constants}) and + - * // % ** <<
    >> | & ^ ~; or a str or bytes as it is written."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, str, bytes):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
        and node.attr in modules[node.value.id]
    ):
        return modules[node.value.id][node.attr]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left, names, modules), _value(node.right, names, modules))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, names, modules))
    raise ConstError("not an int constant: %s" % ast.unparse(node))


def _is_const(node):
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "const"
        and len(node.value.args) == 1
        and not node.value.keywords
    )


def collect(firmware_dir=FIRMWARE_DIR):
    """{module: {public name: int, str or bytes}}: every module's public constants, its own and
    those it imports at its top level, for inline()."""
    collector = _Collector(_parse_modules(firmware_dir))
    for mod in sorted(collector.trees):
        collector.module(mod)
    return collector.table


def _parse_modules(firmware_dir):
    """{module name: its ast}: every .py of the firmware's folder."""
    trees = {}
    for name in sorted(os.listdir(firmware_dir)):
        if name.endswith(".py"):
            with open(os.path.join(firmware_dir, name), encoding="utf-8") as f:
                trees[name[:-3]] = ast.parse(f.read(), name)
    return trees


class _Known:
    """The constants known at a point of a module's top level, as collect() reads it down."""

    def __init__(self):
        self.names = {}  # name -> value: the module's constants, private ones too
        self.modules = {}  # bound name of an imported firmware module -> its public constants
        self.public = {}  # public name -> value: what the module gives collect()'s table

    def set(self, name, value):
        self.names[name] = value
        if not name.startswith("_"):
            self.public[name] = value

    def forget(self, name):
        self.names.pop(name, None)
        self.public.pop(name, None)


class _Collector:
    """collect()'s pass: each module's public constants, read once, those of its imports first."""

    def __init__(self, trees):
        self.trees = trees
        self.table = {}  # module -> its public constants, once known for good

    def module(self, mod, busy=()):
        """The public constants of `mod` (`busy`: the modules whose reading imports it)."""
        if mod in self.table:
            return self.table[mod]
        if mod not in self.trees or mod in busy:  # not the firmware's, or a cycle: none known (yet)
            return {}
        known = _Known()
        for node in self.trees[mod].body:
            self._statement(node, known, busy + (mod,))
        if not busy:
            self.table[mod] = known.public
        return known.public

    def _statement(self, node, known, busy):
        """What a top-level statement makes known (or no longer known)."""
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in self.trees:
            theirs = self.module(node.module, busy)
            for a in node.names:
                if a.name in theirs:
                    known.set(a.asname or a.name, theirs[a.name])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in self.trees and "." not in a.name:
                    known.modules[a.asname or a.name] = self.module(a.name, busy)
        elif _is_const(node):
            try:
                value = _value(node.value.args[0], known.names, known.modules)
            except (ConstError, TypeError):
                return  # a tuple's: mpy-cross has those in their module only
            known.set(node.targets[0].id, value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:  # assigned again: no longer known
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        known.forget(n.id)


# ---- the scopes: which binding each name read refers to ------------------------------------------


class _Scope:
    def __init__(self, kind, parent, every):
        every.append(self)
        self.kind = kind  # "module", "function" or "class"
        self.parent = parent
        self.binds = {}  # name -> [the nodes that bind it here]
        self.globals = set()
        self.nonlocals = set()

    def bind(self, name, node):
        self.binds.setdefault(name, []).append(node)

    def lookup(self, name):
        """The scope whose binding a read of `name` here finds (None: a builtin)."""
        s = self
        while s is not None:
            if name in s.globals:
                while s.parent is not None:
                    s = s.parent
                return s if name in s.binds else None
            if (s is self or s.kind != "class") and name in s.binds and name not in s.nonlocals:
                return s
            s = s.parent
        return None


class _Scopes(ast.NodeVisitor):
    """Pass over a module: each scope's bindings, and the scope of each name read and attribute."""

    def __init__(self):
        self.every = []  # every scope, the module's first
        self.module = self.scope = _Scope("module", None, self.every)
        self.reads = []  # (ast.Name with Load, its scope)
        self.attrs = []  # (ast.Attribute X.NAME with Load, the scope X is read in)

    def _in(self, kind, body):
        enclosing, self.scope = self.scope, _Scope(kind, self.scope, self.every)
        try:
            body()
        finally:
            self.scope = enclosing

    def _args(self, args):
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None:
                self.scope.bind(a.arg, a)

    def _defaults(self, args):
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(d)

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self._defaults(node.args)
        self.scope.bind(node.name, node)

        def body():
            self._args(node.args)
            for stmt in node.body:
                self.visit(stmt)

        self._in("function", body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._defaults(node.args)

        def body():
            self._args(node.args)
            self.visit(node.body)

        self._in("function", body)

    def visit_ClassDef(self, node):
        for d in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(d)
        self.scope.bind(node.name, node)
        self._in("class", lambda: [self.visit(stmt) for stmt in node.body])

    def _comprehension(self, node, parts):
        self.visit(node.generators[0].iter)  # evaluated where the comprehension is

        def body():
            for i, gen in enumerate(node.generators):
                if i:
                    self.visit(gen.iter)
                self.visit(gen.target)
                for cond in gen.ifs:
                    self.visit(cond)
            for part in parts:
                self.visit(part)

        self._in("function", body)

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.reads.append((node, self.scope))
        else:
            self.scope.bind(node.id, node)

    def visit_Attribute(self, node):
        if isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
            self.attrs.append((node, self.scope))
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.scope.bind(a.asname or a.name.split(".")[0], node)

    def visit_ImportFrom(self, node):
        for a in node.names:
            if a.name != "*":
                self.scope.bind(a.asname or a.name, node)

    def visit_Global(self, node):
        self.scope.globals.update(node.names)

    def visit_Nonlocal(self, node):
        self.scope.nonlocals.update(node.names)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.scope.bind(node.name, node)
        self.generic_visit(node)


# ---- the rewrite --------------------------------------------------------------------------------


class _Text:
    """The source's lines, edited by ast positions (columns in UTF-8 bytes) into str positions."""

    def __init__(self, source):
        self.lines = io.StringIO(source, newline="").readlines()  # as ast counts them
        self.edits = []  # ((line, col), (end line, end col), text)

    def _pos(self, line, col):
        return line, len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8"))

    def span(self, node):
        return self._pos(node.lineno, node.col_offset), self._pos(node.end_lineno, node.end_col_offset)

    def text(self, start, end):
        (l1, c1), (l2, c2) = start, end
        if l1 == l2:
            return self.lines[l1 - 1][c1:c2]
        return self.lines[l1 - 1][c1:] + "".join(self.lines[l1 : l2 - 1]) + self.lines[l2 - 1][:c2]

    def replace(self, node, text):
        self.edits.append(self.span(node) + (text,))

    def insert(self, at, text):
        self.edits.append((at, at, text))

    def result(self):
        lines = list(self.lines)
        done = []
        for start, end, text in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            if done and end > done[-1]:
                raise ConstError("overlapping edits at line %d" % start[0])
            done.append(start)
            (l1, c1), (l2, c2) = start, end
            lines[l1 - 1 : l2] = [lines[l1 - 1][:c1] + text + lines[l2 - 1][c2:]]
        out = "".join(lines)
        if out.count("\n") != "".join(self.lines).count("\n"):
            raise ConstError("the rewrite moved lines")
        return out


def inline(source, table, filename="<module>"):
    """The source with the constants it takes from other modules (table: collect()) compiled
    in: see the module's docstring."""
    tree = ast.parse(source, filename)
    scopes = _Scopes()
    scopes.visit(tree)
    where = "%s: " % filename
    consts, modules = _imported(scopes, table)
    _keep_modules_bound_only_by_import(modules)
    _refuse_constants_bound_again(consts, where)
    rewrite = _Rewrite(source, tree, table, where)
    read = rewrite.names_read(scopes, consts)
    inlined_from, replaced_reads = rewrite.attributes_read(scopes, modules)
    rewrite.imports(tree, _taken_out(scopes, consts, read, inlined_from, replaced_reads))
    return rewrite.text.result()


def _imported(scopes, table):
    """The imports of the table's constants and modules, each by its binding:
    ({(scope, bound name): {(home, name)}}, {(scope, bound name): {home}})."""
    consts, modules = {}, {}
    for scope in scopes.every:
        for bound, nodes in scope.binds.items():
            for node in nodes:
                for home_name in _constants_bound(node, bound, table):
                    consts.setdefault((scope, bound), set()).add(home_name)
                for home in _modules_bound(node, bound, table):
                    modules.setdefault((scope, bound), set()).add(home)
    return consts, modules


def _constants_bound(node, bound, table):
    """[(home, name)]: the table's constants an import statement binds as `bound`."""
    if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in table):
        return []
    return [(node.module, a.name) for a in node.names if (a.asname or a.name) == bound and a.name in table[node.module]]


def _modules_bound(node, bound, table):
    """[home]: the table's modules an import statement binds as `bound`."""
    if not isinstance(node, ast.Import):
        return []
    return [a.name for a in node.names if (a.asname or a.name) == bound and a.name in table]


def _keep_modules_bound_only_by_import(modules):
    """Leaves out of `modules` a name bound another way too in its scope: its X.NAME stay as written."""
    for key, homes in list(modules.items()):
        scope, bound = key
        if len(scope.binds[bound]) > len(homes):
            del modules[key]


def _refuse_constants_bound_again(consts, where):
    """ConstError for an imported constant's name its scope binds another way too (or from two homes)."""
    for key, homes in consts.items():
        scope, bound = key
        others = [n for n in scope.binds[bound] if not isinstance(n, (ast.Import, ast.ImportFrom))]
        if others or len(homes) > 1:
            line = others[0].lineno if others else scope.binds[bound][0].lineno
            raise ConstError(
                "%sline %d: %r is imported (from %s) and bound again in the same scope"
                % (where, line, bound, ", ".join(sorted("%s.%s" % h for h in homes)))
            )


def _taken_out(scopes, consts, read, inlined_from, replaced_reads):
    """{id(import node): {the bound names taken out of it}}: every constant's import (but one at
    the module's top level that nothing reads: it stays the module's name too, matchnames.MAX_TARGET),
    and every module's import read only in the X.NAME compiled in."""
    drop = {}

    def take_out(scope, bound):
        for node in scope.binds[bound]:
            drop.setdefault(id(node), set()).add(bound)

    for scope, bound in consts:
        if scope is not scopes.module or (scope, bound) in read:
            take_out(scope, bound)
    for scope, bound in inlined_from:
        if not _read_otherwise(scopes, scope, bound, replaced_reads):
            take_out(scope, bound)
    return drop


def _read_otherwise(scopes, scope, bound, replaced_reads):
    """Whether the module `bound` names in `scope` is read other than in an X.NAME compiled in."""
    return any(
        scope_of.lookup(n.id) is scope and n.id == bound and id(n) not in replaced_reads for n, scope_of in scopes.reads
    )


def _without(node, taken):
    """An import's statement without the names `taken` out of it; `pass` when none is left."""
    kept = [a for a in node.names if (a.asname or a.name.split(".")[0]) not in taken]
    if not kept:
        return "pass"
    alias = ", ".join(a.name + (" as " + a.asname if a.asname else "") for a in kept)
    if isinstance(node, ast.ImportFrom):
        return "from %s import %s" % (node.module, alias)
    return "import " + alias


class _Rewrite:
    """inline()'s edits of the source: the constants' reads named by their definitions, the
    imports cut down, the definitions on the line of the first statement."""

    def __init__(self, source, tree, table, where):
        self.text = _Text(source)
        self.table = table
        self.where = where
        self.defined = {}  # const name -> value
        self.names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}

    def define(self, home, name):
        """The private constant's name for `name` from `home`, defined."""
        short = "_%s_FROM_%s" % (name, home)
        if short in self.names:
            raise ConstError("%s%s is a name of the module already" % (self.where, short))
        self.defined[short] = self.table[home][name]
        return short

    def names_read(self, scopes, consts):
        """Each read of an imported constant's name renamed; {(scope, bound name)}: those read."""
        read = set()
        for node, scope in scopes.reads:
            found = scope.lookup(node.id)
            if found is None or (found, node.id) not in consts:
                continue
            ((home, name),) = consts[(found, node.id)]
            read.add((found, node.id))
            if self.text.text(*self.text.span(node)) != node.id:
                raise ConstError("%sline %d: %r is not where ast says" % (self.where, node.lineno, node.id))
            self.text.replace(node, self.define(home, name))
        return read

    def attributes_read(self, scopes, modules):
        """Each X.NAME of an imported module's constant (on one line) renamed: ({(scope, bound
        name)}: the modules' bindings read so, {id(the X read so)})."""
        inlined_from, replaced_reads = set(), set()
        for node, scope in scopes.attrs:
            found = scope.lookup(node.value.id)
            key = (found, node.value.id)
            if found is None or key not in modules:
                continue
            (home,) = modules[key]
            if node.attr not in self.table[home] or node.lineno != node.end_lineno:
                continue
            if "".join(self.text.text(*self.text.span(node)).split()) != node.value.id + "." + node.attr:
                raise ConstError(
                    "%sline %d: %s.%s is not where ast says" % (self.where, node.lineno, node.value.id, node.attr)
                )
            self.text.replace(node, self.define(home, node.attr))
            replaced_reads.add(id(node.value))
            inlined_from.add(key)
        return inlined_from, replaced_reads

    def imports(self, tree, drop):
        """What is left of each import (`drop`: _taken_out()), on the lines it took; the
        definitions on the line of the module's first statement."""
        first = tree.body[0] if tree.body else None
        placed = False
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) in drop:
                new = _without(node, drop[id(node)])
                if node is first:
                    new += _definitions(self.defined)
                    placed = True
                start, end = self.text.span(node)
                self.text.replace(node, new + "\n" * (end[0] - start[0]))  # the lines it took stay, empty
        if self.defined and not placed:
            if first is None or not isinstance(first, (ast.Expr, ast.Import, ast.ImportFrom, ast.Assign, ast.Pass)):
                raise ConstError("%sthe first statement is not a simple one: no line for the constants" % self.where)
            self.text.insert(self.text.span(first)[1], _definitions(self.defined))


def _definitions(defined):
    return "".join("; %s = const(%r)" % (name, defined[name]) for name in sorted(defined))
