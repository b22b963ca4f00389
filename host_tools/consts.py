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
    trees = {}
    for name in sorted(os.listdir(firmware_dir)):
        if name.endswith(".py"):
            with open(os.path.join(firmware_dir, name), encoding="utf-8") as f:
                trees[name[:-3]] = ast.parse(f.read(), name)
    table = {}

    def module(mod, busy=()):
        if mod in table:
            return table[mod]
        if mod not in trees or mod in busy:  # not the firmware's, or a cycle: none known (yet)
            return {}
        names, modules, public = {}, {}, {}
        for node in trees[mod].body:
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in trees:
                theirs = module(node.module, busy + (mod,))
                for a in node.names:
                    if a.name in theirs:
                        names[a.asname or a.name] = theirs[a.name]
                        if not (a.asname or a.name).startswith("_"):
                            public[a.asname or a.name] = theirs[a.name]
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in trees and "." not in a.name:
                        modules[a.asname or a.name] = module(a.name, busy + (mod,))
            elif _is_const(node):
                target = node.targets[0].id
                try:
                    value = _value(node.value.args[0], names, modules)
                except (ConstError, TypeError):
                    continue  # a tuple's: mpy-cross has those in their module only
                names[target] = value
                if not target.startswith("_"):
                    public[target] = value
            elif isinstance(node, ast.Assign):
                for target in node.targets:  # assigned again: no longer known
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            names.pop(n.id, None)
                            public.pop(n.id, None)
        if not busy:
            table[mod] = public
        return public

    for mod in sorted(trees):
        module(mod)
    return table


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

    # The imports: a constant's binding -> (home, name); a module's binding -> home.
    consts, modules = {}, {}  # (scope, bound name) -> {(home, name)}, {home}
    for scope in scopes.every:
        for bound, nodes in scope.binds.items():
            for node in nodes:
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in table:
                    for a in node.names:
                        if (a.asname or a.name) == bound and a.name in table[node.module]:
                            consts.setdefault((scope, bound), set()).add((node.module, a.name))
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if (a.asname or a.name) == bound and a.name in table:
                            modules.setdefault((scope, bound), set()).add(a.name)
    for key, homes in list(modules.items()):
        scope, bound = key
        if len(scope.binds[bound]) > len(homes):  # bound another way too: its X.NAME stay as they are
            del modules[key]
    for key, homes in consts.items():
        scope, bound = key
        others = [n for n in scope.binds[bound] if not isinstance(n, (ast.Import, ast.ImportFrom))]
        if others or len(homes) > 1:
            line = others[0].lineno if others else scope.binds[bound][0].lineno
            raise ConstError(
                "%sline %d: %r is imported (from %s) and bound again in the same scope"
                % (where, line, bound, ", ".join(sorted("%s.%s" % h for h in homes)))
            )

    text = _Text(source)
    defined = {}  # const name -> value
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)

    def define(home, name):
        short = "_%s_FROM_%s" % (name, home)
        if short in names:
            raise ConstError("%s%s is a name of the module already" % (where, short))
        defined[short] = table[home][name]
        return short

    inlined_from = {}  # (scope, module bound name) -> count of X.NAME inlined
    read = set()  # the constants' bindings read
    for node, scope in scopes.reads:
        found = scope.lookup(node.id)
        if found is not None and (found, node.id) in consts:
            ((home, name),) = consts[(found, node.id)]
            read.add((found, node.id))
            if text.text(*text.span(node)) != node.id:
                raise ConstError("%sline %d: %r is not where ast says" % (where, node.lineno, node.id))
            text.replace(node, define(home, name))
    replaced_reads = set()
    for node, scope in scopes.attrs:
        found = scope.lookup(node.value.id)
        key = (found, node.value.id)
        if found is None or key not in modules:
            continue
        (home,) = modules[key]
        if node.attr not in table[home] or node.lineno != node.end_lineno:
            continue
        if "".join(text.text(*text.span(node)).split()) != node.value.id + "." + node.attr:
            raise ConstError("%sline %d: %s.%s is not where ast says" % (where, node.lineno, node.value.id, node.attr))
        text.replace(node, define(home, node.attr))
        replaced_reads.add(id(node.value))
        inlined_from[key] = inlined_from.get(key, 0) + 1

    # What is left of each import.
    drop = {}  # id(import node) -> {names taken out}
    for (scope, bound), homes in consts.items():
        if scope is scopes.module and (scope, bound) not in read:
            continue  # imported to be the module's name too (matchnames.MAX_TARGET): stays
        for node in scope.binds[bound]:
            drop.setdefault(id(node), set()).add(bound)
    for key in inlined_from:
        scope, bound = key
        if not any(
            scope_of.lookup(n.id) is scope and n.id == bound and id(n) not in replaced_reads
            for n, scope_of in scopes.reads
        ):
            for node in scope.binds[bound]:
                drop.setdefault(id(node), set()).add(bound)
    first = tree.body[0] if tree.body else None
    anchor_done = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) in drop:
            kept = [a for a in node.names if (a.asname or a.name.split(".")[0]) not in drop[id(node)]]
            start, end = text.span(node)
            pad = "\n" * (end[0] - start[0])
            if kept:
                alias = ", ".join(a.name + (" as " + a.asname if a.asname else "") for a in kept)
                new = (
                    ("from %s import %s" % (node.module, alias))
                    if isinstance(node, ast.ImportFrom)
                    else ("import " + alias)
                )
            else:
                new = "pass"
            if node is first:
                new += _definitions(defined)
                anchor_done = True
            if pad:  # the lines it took stay, empty
                new = new + pad
            text.replace(node, new)
    if defined and not anchor_done:
        if first is None or not isinstance(first, (ast.Expr, ast.Import, ast.ImportFrom, ast.Assign, ast.Pass)):
            raise ConstError("%sthe first statement is not a simple one: no line for the constants" % where)
        text.insert(text.span(first)[1], _definitions(defined))
    return text.result()


def _definitions(defined):
    return "".join("; %s = const(%r)" % (name, defined[name]) for name in sorted(defined))
