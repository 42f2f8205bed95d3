# The trusted QuixBugs runner. Static text owned by the project (never model output); it runs
# inside the bubblewrap sandbox in one of two modes, always from a read-only /task:
#
#   prepare  (no program under test anywhere in the sandbox): reads the data set's test data
#            for one program and prints every public case as {input, expected, compare}. The
#            Node side keeps `expected` and never sends it into a sandbox that runs a candidate.
#   run      a SUPERVISOR (this process, which never imports the candidate) forks a WORKER that
#            imports python_programs/<p>.py (the candidate, or the reference fix when the Node
#            side computes held-out expectations), calls the function on each case's INPUT ONLY
#            and prints each return value in a canonical form. Nothing here knows an expected
#            value; the comparison happens in the Node process, outside the sandbox. Where the
#            job has a held-out phase (issue #36), a second worker, forked afresh after the
#            first has ended and the sandbox is as it found it, runs the held-out cases, which
#            Node sends only then (see "the public and the held-out cases in one sandbox").
#
# The candidate shares the worker's process, so it can rewrite anything the worker does and
# write any line it likes. That is accepted by design: a line it forges is a value it could have
# returned from the function, and without the expected values it cannot know what would pass.
# What it cannot reach is the supervisor: a separate process, made non-dumpable (so no
# /proc/<pid>/mem or /proc/<pid>/fd/* access; ptrace is refused by the seccomp filter), which
# alone holds the result channel to Node, measures from outside the CPU time of every process
# the worker started (it is their subreaper) and SIGKILLs them when one case takes more than its
# CPU limit (a limit that a handler inside the candidate's process could catch would not be one).
# Canonical values use type checks against the built-in and standard-library classes and read
# them through those classes' own methods, never calling code a candidate defined: a value of a
# class with its own __eq__ (or __hash__) is reported as "other", never as a passing value
# (builtin_base). sqrt's values are written with their class for pytest.approx's arithmetic
# (typed_number). Python starts with -S (runnerFiles.ts): only the standard library imports.
#
# Start-up (issue #36): the garbage collector is paused while the runner imports and defines
# what it needs, and those objects are made permanent (gc.freeze in main) before anything of the
# candidate's runs: no collection re-walks them. The candidate's objects are collected as before
# (gc on, default thresholds). hashlib is imported by prepare mode alone.
import gc

if __name__ == "__main__":
    gc.disable()

import collections
import decimal
import fractions
import importlib
import importlib.util
import json
import math
import os
import re
import stat
import sys

MAX_DEPTH = 200
MAX_ITEMS = 1_000_000


class TooLarge(Exception):
    pass


# Python's == across the numeric tower (int, bool, float, Fraction, Decimal, complex) compares
# exact values: Fraction(1, 2) == 0.5 == Decimal("0.5") and 3 == 3.0 == Fraction(3) == 3+0j.
# So every real number is written from its exact rational value: an integer as ["n", digits], a
# value a float holds exactly as ["f", repr(float)] (the form the tolerance comparison of sqrt
# reads), any other rational as ["q", "p/q"] (lowest terms); Fraction(1, 3) is then never equal
# to the float 0.333..., as in Python.
DECIMAL_MAX_EXPONENT = 4000  # a Decimal beyond it would need a huge exact integer: too large


def rational(num, den):
    if den < 0:
        num, den = -num, -den
    g = math.gcd(num, den)
    num, den = num // g, den // g
    if den == 1:
        return ["n", int.__repr__(num)]
    try:
        f = num / den  # correctly rounded
    except OverflowError:
        f = None
    if f is not None and float.as_integer_ratio(f) == (num, den):
        return ["f", float.__repr__(f)]
    return ["q", int.__repr__(num) + "/" + int.__repr__(den)]


def real_float(f):
    if math.isnan(f):
        return ["nan"]
    if math.isinf(f):
        return ["f", "inf" if f > 0 else "-inf"]
    if f.is_integer():
        return ["n", str(int(f))]
    return ["f", float.__repr__(f)]


BUILTIN_BASES = (bool, int, float, complex, str, list, tuple, set, frozenset, dict)
# OrderedDict and Counter define their own __eq__, which against a plain dict is dict's.
DICT_LIKE = (collections.OrderedDict, collections.Counter)


def class_dict(cls):
    return type.__dict__["__dict__"].__get__(cls)


def builtin_base(cls):
    """The built-in class whose == (and hash) a value of class cls has, or None.

    A subclass of a built-in class that defines neither __eq__ nor __hash__ anywhere below it
    compares as that class does (`result == expected` calls the inherited method, which reads
    the built-in storage; a set or dict key is found by the inherited hash): pytest then gives
    the verdict the built-in value would get, and so does the grade. A class that defines
    either is refused ("other"): its == is its own code.
    """
    if cls in BUILTIN_BASES:
        return cls
    if cls in DICT_LIKE:
        return dict
    mro = type.__dict__["__mro__"].__get__(cls)
    for i, c in enumerate(mro):
        if c in BUILTIN_BASES:
            base = c
            below = mro[:i]
            break
    else:
        return None
    for c in below:
        d = class_dict(c)
        if "__eq__" in d or "__hash__" in d:
            return None
    return base


def canon(value, node_ids, budget, depth=0):
    """A JSON-able canonical form in which values that Python's == finds equal are identical.

    Only values whose == is known are described: those of the built-in classes and their
    subclasses that leave == and hash alone (builtin_base), and a few standard-library classes
    (Fraction, Decimal, UserList, UserDict, UserString, OrderedDict, Counter), each read through
    the built-in or standard class's own methods and slots, never a method the candidate
    defined. Anything else, a class with its own __eq__ included, is ["other", its class name]:
    pytest's `result == expected` would call that __eq__ (an int subclass may answer anything),
    which the grade never does, since it would need the expected value beside the candidate
    (docs: "Forged equality"). So such a value never passes, whatever it holds. deque, array,
    range, dict views and iterators are "other" too: a list never equals them in Python either
    (deque([1]) != [1]).
    """
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise TooLarge()
    t = type(value)
    if value is None:
        return ["none"]
    b = builtin_base(t)
    if b is bool:
        return ["n", "1" if value is True else "0"]
    if b is int:
        return ["n", int.__repr__(value)]
    if b is float:
        return real_float(float.__float__(value))
    if b is complex:
        re, im = complex.real.__get__(value), complex.imag.__get__(value)
        if im == 0:
            return real_float(re)
        return ["c", real_float(re), real_float(im)]
    if t is fractions.Fraction:
        num, den = object.__getattribute__(value, "_numerator"), object.__getattribute__(value, "_denominator")
        if type(num) is not int or type(den) is not int or den == 0:
            return ["other", "Fraction"]
        return rational(num, den)
    if t is decimal.Decimal:
        if decimal.Decimal.is_nan(value):
            return ["nan"]
        if decimal.Decimal.is_infinite(value):
            return ["f", "-inf" if decimal.Decimal.is_signed(value) else "inf"]
        if abs(decimal.Decimal.adjusted(value)) > DECIMAL_MAX_EXPONENT:
            raise TooLarge()
        return rational(*decimal.Decimal.as_integer_ratio(value))
    if b is str:
        return ["s", str.__str__(value)]
    d = depth + 1
    if t is collections.UserList or t is collections.UserString:
        # UserList.__eq__ and UserString.__eq__ compare self.data with the other side.
        return canon(object.__getattribute__(value, "data"), node_ids, budget, d)
    if t is collections.UserDict:
        # Mapping.__eq__: dict(self.items()) == dict(other.items()), i.e. the dict it holds.
        inner = canon(object.__getattribute__(value, "data"), node_ids, budget, d)
        return inner if inner[0] == "d" else ["other", "UserDict"]
    if b is list:
        return ["l", [canon(list.__getitem__(value, i), node_ids, budget, d) for i in range(list.__len__(value))]]
    if b is tuple:
        return ["t", [canon(tuple.__getitem__(value, i), node_ids, budget, d) for i in range(tuple.__len__(value))]]
    if b is set or b is frozenset:
        items = set.__iter__(value) if b is set else frozenset.__iter__(value)
        return ["set", sorted(json.dumps(canon(v, node_ids, budget, d), sort_keys=True) for v in items)]
    if b is dict:
        pairs = [[json.dumps(canon(k, node_ids, budget, d), sort_keys=True), canon(v, node_ids, budget, d)] for k, v in dict.items(value)]
        pairs.sort(key=lambda p: p[0])
        return ["d", pairs]
    if node_ids is not None and id(value) in node_ids and compares_by_identity(t):
        return ["node", node_ids[id(value)]]
    return ["other", type.__dict__["__name__"].__get__(t)[:40]]


def compares_by_identity(cls):
    """Whether instances of cls compare with == as object does (by identity): no class of its
    MRO but object defines __eq__ (node.py's Node does not; a program could give it one)."""
    for c in type.__dict__["__mro__"].__get__(cls):
        if c is not object and "__eq__" in class_dict(c):
            return False
    return True


def canon_text(value, node_ids):
    return json.dumps(canon(value, node_ids, [MAX_ITEMS]), sort_keys=True, separators=(",", ":"))


# pytest.approx (sqrt's test: `sqrt(*input_data) == pytest.approx(expected, abs=input_data[-1])`)
# does arithmetic on the value it is given, and the result depends on the value's class:
# `float - Decimal` raises, `int - Decimal` rounds to the decimal context, `float - Fraction`
# goes through float(Fraction). So for that comparison a number is written with its class and
# its exact value (approxScalar.ts replays ApproxScalar.__eq__ on it); anything else is "other".
# Python's default context, and its traps in DECIMAL_SIGNALS' order.
DECIMAL_SIGNALS = (decimal.Clamped, decimal.DivisionByZero, decimal.Inexact, decimal.InvalidOperation,
                   decimal.Overflow, decimal.Rounded, decimal.Subnormal, decimal.Underflow, decimal.FloatOperation)
DEFAULT_DECIMAL_CONTEXT = (28, decimal.ROUND_HALF_EVEN, -999999, 999999, 0,
                           (decimal.DivisionByZero, decimal.InvalidOperation, decimal.Overflow))


def decimal_context_is_default():
    """Whether the decimal context (which `int - Decimal` rounds in) is Python's default one;
    a program may change it, and the comparison is then refused rather than guessed."""
    ctx = decimal.getcontext()
    if type(ctx) is not decimal.Context:
        return False
    traps = tuple(s for s in DECIMAL_SIGNALS if ctx.traps[s])
    return (ctx.prec, ctx.rounding, ctx.Emin, ctx.Emax, ctx.clamp, traps) == DEFAULT_DECIMAL_CONTEXT


def typed_number(value):
    t = type(value)
    if t is bool:
        return ["bool", "1" if value is True else "0"]
    if t is int:
        return ["int", int.__repr__(value)]
    if t is float:
        return ["float", float.__repr__(value)]
    if t is complex:
        return ["complex", float.__repr__(complex.real.__get__(value)), float.__repr__(complex.imag.__get__(value))]
    if t is fractions.Fraction:
        num, den = object.__getattribute__(value, "_numerator"), object.__getattribute__(value, "_denominator")
        if type(num) is not int or type(den) is not int or den <= 0:
            return ["other", "Fraction"]
        return ["fraction", int.__repr__(num), int.__repr__(den)]
    if t is decimal.Decimal:
        ctx = decimal_context_is_default()
        if decimal.Decimal.is_snan(value):
            return ["decimal", "snan", ctx]
        if decimal.Decimal.is_qnan(value):
            return ["decimal", "nan", ctx]
        if decimal.Decimal.is_infinite(value):
            return ["decimal", "-inf" if decimal.Decimal.is_signed(value) else "inf", ctx]
        sign, digits, exponent = decimal.Decimal.as_tuple(value)
        if len(digits) + abs(exponent) > DECIMAL_MAX_EXPONENT:
            raise TooLarge()
        return ["decimal", "finite", ctx, "-" if sign else "", "".join(str(x) for x in digits), str(exponent)]
    return ["other", type.__dict__["__name__"].__get__(t)[:40]]


def result_text(adapter, value, node_ids):
    """The canonical text of a value as a case's comparison reads it."""
    if adapter == "approx_number":
        return json.dumps(typed_number(value), separators=(",", ":"))
    return canon_text(ADAPTERS[adapter](value), node_ids)


# ---- tagged inputs (the format the Node side also writes for held-out cases) ----
#
# A case's Node objects are described in its "nodes" and referred to as ["node", i]. Where the
# upstream test file shares module-level objects across its tests (detect_cycle's five nodes,
# shortest_path_length's nodes and length_by_edge), the first case carries them as its "scene"
# ({"nodes": [...], "values": [...]}), built once in the worker and kept for the cases after
# it, which refer to them as ["gnode", i] and ["global", i] (the same objects every time, with
# whatever the program did to them), and whose "setup" lists the test's own assignments to
# them before its call ([target, attribute, value]), made in the test file's order.

def encode_input(value, graph):
    if graph is not None:
        shared = graph.shared_ref(value)
        if shared is not None:
            return shared
    t = type(value)
    if value is None:
        return ["none"]
    if t is bool:
        return ["b", value]
    if t is int:
        return ["n", str(value)]
    if t is float:
        return ["f", repr(value)]
    if t is str:
        return ["s", value]
    if t is list:
        return ["l", [encode_input(v, graph) for v in value]]
    if t is tuple:
        return ["t", [encode_input(v, graph) for v in value]]
    if t is set:
        return ["set", [encode_input(v, graph) for v in value]]
    if t is dict:
        return ["d", [[encode_input(k, graph), encode_input(v, graph)] for k, v in value.items()]]
    if graph is not None and t.__name__ == "Node":
        return [graph.tag, graph.node_id(value)]
    raise TypeError("cannot encode " + t.__name__)


NODE_ATTRS = ("successor", "successors", "predecessors", "incoming_nodes", "outgoing_nodes")


def constructor_defaults(cls):
    import inspect
    try:
        params = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


class GraphEncoder:
    """The Node objects of one case (tag "node"), or of a test file's module level (a scene:
    tag "gnode", with its other shared objects as "global" values)."""

    def __init__(self, scene=None, tag="node"):
        self.ids = {}
        self.nodes = []
        self.scene = scene
        self.tag = tag
        self.global_ids = {}

    def shared_ref(self, value):
        scene = self.scene
        if scene is None:
            return None
        if id(value) in scene.global_ids:
            return ["global", scene.global_ids[id(value)]]
        if id(value) in scene.ids:
            return ["gnode", scene.ids[id(value)]]
        return None

    def node_id(self, node):
        key = id(node)
        if key not in self.ids:
            self.ids[key] = len(self.nodes)
            self.nodes.append(node)
        return self.ids[key]

    def describe(self):
        out = []
        i = 0
        while i < len(self.nodes):  # attributes may reach further nodes
            node = self.nodes[i]
            rec = {"value": encode_input(node.value, self)}
            defaults = constructor_defaults(type(node))
            for attr in NODE_ATTRS:
                if not hasattr(node, attr):
                    continue
                v = getattr(node, attr)
                # Left out: None, and the constructor's own default list (node.py's defaults
                # are mutable and shared by every Node built without that argument, as in the
                # tests; the run builds its nodes the same way, so they share it there too).
                if v is None or v is defaults.get(attr):
                    continue
                targets = [v] if type(v).__name__ == "Node" else list(v)
                if self.scene is not None and any(self.shared_ref(n) is not None for n in targets):
                    raise TypeError("a test's own node refers to a module-level one (not transcribable)")
                rec[attr] = self.node_id(v) if type(v).__name__ == "Node" else [self.node_id(n) for n in v]
            out.append(rec)
            i += 1
        return out

    def describe_scene(self, objects):
        """This (scene) encoder's description of a test file's module-level objects."""
        values = []
        for obj in objects:
            if type(obj).__name__ == "Node":
                self.node_id(obj)
        for obj in objects:
            if type(obj).__name__ != "Node":
                values.append(encode_input(obj, self))
                self.global_ids[id(obj)] = len(values) - 1
        return {"nodes": self.describe(), "values": values}


class Scope:
    """What tagged inputs refer to: a case's own nodes and the test file's shared objects."""

    def __init__(self, nodes=(), scene_nodes=(), scene_values=()):
        self.nodes = nodes
        self.scene_nodes = scene_nodes
        self.scene_values = scene_values


def decode_input(tagged, scope):
    tag = tagged[0]
    if tag == "none":
        return None
    if tag == "b":
        return bool(tagged[1])
    if tag == "n":
        return int(tagged[1])
    if tag == "f":
        return float(tagged[1])
    if tag == "s":
        return str(tagged[1])
    if tag == "l":
        return [decode_input(v, scope) for v in tagged[1]]
    if tag == "t":
        return tuple(decode_input(v, scope) for v in tagged[1])
    if tag == "set":
        return set(decode_input(v, scope) for v in tagged[1])
    if tag == "d":
        return {decode_input(k, scope): decode_input(v, scope) for k, v in tagged[1]}
    if tag == "node":
        return scope.nodes[int(tagged[1])]
    if tag == "gnode":
        return scope.scene_nodes[int(tagged[1])]
    if tag == "global":
        return scope.scene_values[int(tagged[1])]
    raise ValueError("unknown tag")


def build_nodes(specs, node_class, scope_of):
    """The Node objects of specs; scope_of(nodes) is what their values' tags refer to."""
    nodes = [node_class(None) for _ in specs]
    inner = scope_of(nodes)
    for node, spec in zip(nodes, specs):
        node.value = decode_input(spec["value"], inner)
        for attr in NODE_ATTRS:
            v = spec.get(attr)
            if type(v) is int:
                setattr(node, attr, nodes[v])
            elif type(v) is list:
                setattr(node, attr, [nodes[j] for j in v])
            # Not given: left as node.py's constructor made it (None, or its shared default list).
    return nodes


def build_scene(scene, node_class):
    """A test file's module-level objects (built once, shared by the cases after it)."""
    values = []
    nodes = build_nodes(scene.get("nodes", []), node_class, lambda ns: Scope((), ns, values))
    scope = Scope((), nodes, values)
    for v in scene.get("values", []):
        values.append(decode_input(v, scope))
    return nodes, values


def node_ids_of(scope):
    """id(node) -> its canonical id: a case's own nodes by number, shared ones as "g<i>"."""
    ids = {id(n): i for i, n in enumerate(scope.nodes)}
    ids.update({id(n): "g%d" % i for i, n in enumerate(scope.scene_nodes)})
    return ids


# ---- adapters: what the test does with the return value before comparing ----

def walk_values(node, limit=10_000):
    values = []
    while node and len(values) < limit:
        values.append(node.value)
        node = node.successor
    return values


ADAPTERS = {
    "identity": lambda r: r,
    "list": lambda r: list(r),
    "truthy": lambda r: bool(r),
    "node_values": lambda r: [x.value for x in r],
    "linked_list": lambda r: (r, walk_values(r)),
    "approx_number": lambda r: r,  # written by typed_number (result_text), not canon
}


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def node_class(root):
    path = os.path.join(root, "python_testcases", "node.py")
    return load_module(path, "node").Node if os.path.exists(path) else None


def node_class_as_tests_import_it():
    """python_testcases/node.py imported as `node`, as the tests do (`from node import Node`).

    pytest (rootdir conftest.py, no __init__.py in python_testcases) puts python_testcases/ and
    the root on sys.path and imports the program as python_programs.<p>, so a program's own
    `from node import Node` gets the same module, and the same class, as the test's nodes.
    """
    if not os.path.exists(os.path.join("python_testcases", "node.py")):
        return None
    return importlib.import_module("node").Node


# ---- prepare mode ----

def template_hash(text, program):
    import hashlib
    return hashlib.sha256(text.replace(program, "{p}").encode("utf-8")).hexdigest()


def prepare(job, out):
    from json_test_templates import json_rules  # trusted, beside this file
    from handwritten_cases import handwritten, SHARED   # trusted, beside this file
    program = job["program"]
    test_text = open(os.path.join("python_testcases", "test_" + program + ".py"), encoding="utf-8").read()
    h = template_hash(test_text, program)
    cases = []
    excluded = []
    scene = None
    data_path = os.path.join("json_testcases", program + ".json")
    rule = json_rules(h) if os.path.exists(data_path) else None
    if rule is not None:
        with open(data_path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        for k, (args, expected) in enumerate(rows):
            label = "case %d" % (k + 1)
            why = rule.get("skip", lambda a, slow: None)(args, job["includeSlow"])
            if why:
                excluded.append(label + ": " + why)
                continue
            expected = rule.get("expected", lambda e: e)(expected)
            compare = rule.get("compare", lambda a: {"kind": "equal"})(args)
            cases.append((label, None, list(args), rule.get("adapter", "identity"), expected, compare, []))
    else:
        builder = handwritten(program, h)
        if builder is None:
            out({"untranscribed": h})
            return
        for item in builder(node_class("."), job["includeSlow"]):
            if item[0] is SHARED:
                # The test file's module-level objects, shared by its tests (see Scope).
                scene = GraphEncoder(tag="gnode")
                scene_description = scene.describe_scene(item[1])
                continue
            label, args, adapter, expected, slow = item[:5]
            if slow and not job["includeSlow"]:
                excluded.append(label + ": slow case (run with --include-slow)")
                continue
            setup = item[5] if len(item) > 5 else []
            cases.append((label, GraphEncoder(scene), list(args), adapter, expected, {"kind": "equal"}, setup))
    for k, (label, graph, args, adapter, expected, compare, setup) in enumerate(cases):
        inputs = {"args": [encode_input(a, graph) for a in args], "adapter": adapter}
        if setup:
            inputs["setup"] = [[encode_input(target, graph), attr, encode_input(v, graph)] for target, attr, v in setup]
        ids = None
        if graph is not None:
            inputs["nodes"] = graph.describe()
            ids = dict(graph.ids)
            if scene is not None:
                ids.update({key: "g%d" % i for key, i in scene.ids.items()})
        if k == 0 and scene is not None:
            inputs["scene"] = scene_description
        if adapter == "approx_number":
            expected_text = json.dumps(typed_number(expected), separators=(",", ":"))
        else:
            expected_text = canon_text(expected, ids)
        out({"case": {"label": label, "input": inputs, "expected": expected_text, "compare": compare}})
    for label in excluded:
        out({"excluded": label})


# ---- run mode: the worker (imports the candidate) ----

# Recursion as pytest has it: under pytest 9.0.3 on Python 3.11.7 (the sandbox's), with
# Python's default limit of 1,000, the function under test is called at frame depth 34 and may
# recurse 960 frames deeper (961 raises RecursionError: pytest's stack also holds C-level calls
# that count against the limit). Measured with a gcd that recurses N times before answering;
# the corpus test (test/bench/gradingFidelity.test.ts) checks the boundary, 960 passes and 961
# fails, under both pytest and this runner. The worker sets the limit so that the function,
# called from the worker's frame, has exactly that headroom.
PYTEST_HEADROOM = 960


def frame_depth():
    f, n = sys._getframe(1), 0
    while f is not None:
        n, f = n + 1, f.f_back
    return n


def run_worker(job, out):
    program = job["program"]
    # The import path as pytest has it (see node_class_as_tests_import_it).
    sys.path[:0] = [os.path.join(os.getcwd(), "python_testcases"), os.getcwd()]
    try:
        nclass = node_class_as_tests_import_it()
    except BaseException as e:  # the trusted helper itself failed: say so, never guess
        out({"import_error": "node helper: " + type(e).__name__})
        return
    try:
        module = importlib.import_module("python_programs." + program)
        function = getattr(module, program)
    except BaseException as e:  # import-time failure of the file under test: a broken file
        out({"import_error": type(e).__name__})
        return
    # The function runs at this frame's depth + 1; 960 more frames fit, 961 do not.
    sys.setrecursionlimit(frame_depth() + 1 + PYTEST_HEADROOM)
    # One process for all cases, in the tests' order, as pytest runs them: a program that
    # mutates shared state (node.py's default lists, its own globals, the test file's
    # module-level objects: see Scope) sees it mutated in later cases as it would under pytest.
    # A case's own inputs are built fresh, as each test function (or JSON row) builds its own.
    scene_nodes, scene_values = [], []
    for k, case in enumerate(job["cases"]):
        try:
            if "scene" in case:
                scene_nodes, scene_values = build_scene(case["scene"], nclass)
            nodes = (
                build_nodes(case["nodes"], nclass, lambda ns: Scope(ns, scene_nodes, scene_values))
                if case.get("nodes") else []
            )
            scope = Scope(nodes, scene_nodes, scene_values)
            for target, attr, value in case.get("setup", []):
                if attr not in NODE_ATTRS:
                    raise ValueError("setup of an unknown attribute")
                setattr(decode_input(target, scope), attr, decode_input(value, scope))
            args = [decode_input(a, scope) for a in case["args"]]
            text = result_text(case["adapter"], function(*args), node_ids_of(scope))
        except TooLarge:
            out({"i": k, "s": "too_large"})
            continue
        except RecursionError:
            out({"i": k, "s": "error", "e": "RecursionError"})
            continue
        except Exception as e:
            out({"i": k, "s": "error", "e": type(e).__name__})
            continue
        out({"i": k, "s": "ok", "v": text})


# ---- run mode: the supervisor (never imports the candidate) ----

POLL_SECONDS = 0.02
RESULT_HEAD = re.compile(rb'\{"i":([0-9]{1,9}),')
LINE_MAX_BYTES = 16 * 1024 * 1024  # RESULT_CHANNEL_MAX_BYTES on the Node side


def harden_supervisor():
    """PR_SET_DUMPABLE 0: no other process of the same user may open /proc/<self>/mem or fd/*.
    PR_SET_CHILD_SUBREAPER 1: every process the worker starts stays a descendant of this one,
    even orphaned (double fork, setsid), so its CPU time counts and it is killed with the rest,
    while nothing outside this process's own tree is ever touched.

    Fails closed: a supervisor the worker could write into, or that loses track of the worker's
    processes, is no supervisor.
    """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    for option, what in ((4, "PR_SET_DUMPABLE, 0"), (36, "PR_SET_CHILD_SUBREAPER, 1")):
        if libc.prctl(option, 0 if option == 4 else 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(%s) failed" % what)


def process_table():
    """pid -> the fields of /proc/<pid>/stat after the command name (fields[0] is the state,
    stat field 3; fields[1] the parent; utime, stime, cutime, cstime at 11..14)."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                table[int(name)] = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # exited meanwhile: its time moves to its parent's cutime
    return table


def descendants(me, table):
    children = {}
    for pid, fields in table.items():
        children.setdefault(int(fields[1]), []).append(pid)
    found, todo = [], list(children.get(me, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def tree_cpu_ticks(me):
    """CPU ticks of every process below this one (the worker, its threads, its children and
    orphans, with the children each has reaped) and of those this one reaped: a worker that
    hands the work to a subprocess, a thread or an orphan still pays for it."""
    table = process_table()
    own = table.get(me)
    total = int(own[13]) + int(own[14]) if own else 0
    for pid in descendants(me, table):
        f = table[pid]
        total += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
    return total


def kill_tree(me):
    """SIGKILLs every descendant and reaps them, until none is left (zombies included: they are
    listed until reaped) or KILL_TREE_SECONDS passed. A killed process takes a time slice to
    exit, which on a loaded machine can come after many quick rounds: the rounds are spaced by
    a short sleep (no CPU), so the held-out phase's check finds the public phase's processes
    gone instead of sending its cases to a sandbox of their own for nothing."""
    import signal
    import time
    deadline = time.monotonic() + KILL_TREE_SECONDS
    while True:
        pids = descendants(me, process_table())
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        if time.monotonic() > deadline:
            return
        time.sleep(0.002)


KILL_TREE_SECONDS = 2.0


def run_phase(job, channel, out_line, secret):
    """Forks a worker for job's cases and forwards its lines to Node until its completion marker
    (True) or until it ends without one (False).

    secret: where the job has a held-out phase, the run's key (phase_key), which the worker
    overwrites with zeros before anything of the candidate's runs (so that no process of it can
    write the supervisor's phase lines), and whose worker gets /dev/null as its stdin (the
    supervisor's pipe from Node stays the supervisor's), as a run without a second phase has it.
    """
    import selectors
    import time
    cases = len(job["cases"])
    limit_ticks = float(job.get("caseCpuSeconds", 0)) * os.sysconf("SC_CLK_TCK")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        # The worker: nothing of the candidate has run yet. Drop the channel to Node before
        # importing it; results go into the pipe, read by the supervisor.
        try:
            os.close(read_end)
            channel.close()
            if secret is not None:
                secret[:] = bytes(len(secret))
                null = os.open("/dev/null", os.O_RDONLY)
                os.dup2(null, 0)
                os.close(null)
            worker_channel = os.fdopen(write_end, "wb")

            def worker_out(record):
                worker_channel.write(json.dumps(record, separators=(",", ":")).encode("utf-8") + b"\n")
                worker_channel.flush()

            run_worker(job, worker_out)
            worker_out({"done": True})
        finally:
            os._exit(0)
    os.close(write_end)
    me = os.getpid()
    sel = selectors.DefaultSelector()
    sel.register(read_end, selectors.EVENT_READ)
    state = {"pending": b"", "next": 0}

    def forward(chunk):
        """Passes whole lines on to Node; True once the worker's completion marker came."""
        state["pending"] += chunk
        if b"\n" not in chunk:
            return False  # (a long line arrives in many chunks: scan each once)
        while b"\n" in state["pending"]:
            line, state["pending"] = state["pending"].split(b"\n", 1)
            out_line(line)
            # Only the record's head is read (values can be megabytes; Node parses them): which
            # case it closes, or the marker. A forged head only moves the CPU clock, as a forged
            # result would.
            if line == b'{"done":true}':
                return True
            head = RESULT_HEAD.match(line)
            if head and int(head.group(1)) == state["next"]:
                state["next"] += 1
        return False

    # CPU is read at most once per POLL_SECONDS (a /proc walk per result would cost more than
    # the cases); a case's clock starts at the first reading after its predecessor's result,
    # so each case is charged from at most one poll interval after it began.
    # Where the sandbox keeps the run's CPU time in a cgroup, the Node side holds every budget
    # from outside (caseCpuSeconds 0 here): this process only forwards, and stopping it
    # (SIGSTOP) holds back results but no budget. Without one, it polls /proc as below.
    case_start = tree_cpu_ticks(me) if limit_ticks > 0 else 0
    seen = 0
    last_poll = time.monotonic()
    ended = False  # the worker's completion marker came
    over = 0  # consecutive readings over the limit: a process reaped between two reads is
    while True:  # briefly counted twice; two readings in a row never are
        if sel.select(POLL_SECONDS):
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break  # every writer gone without the completion marker: never a pass
            if forward(chunk):
                ended = True
                break
            if len(state["pending"]) > LINE_MAX_BYTES:
                out_line(b'{"channel":"a result line over its size limit"}')
                break
        elif os.waitpid(pid, os.WNOHANG)[0] == pid:
            # The worker ended; whatever it left behind must not keep the run (or the pipe)
            # open. Then read what is still in the pipe.
            kill_tree(me)
            while True:
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    break
                if forward(chunk):
                    ended = True
                    break
            break
        now = time.monotonic()
        if limit_ticks <= 0 or now - last_poll < POLL_SECONDS:
            continue
        last_poll = now
        ticks = tree_cpu_ticks(me)
        if state["next"] != seen:
            case_start, seen, over = ticks, state["next"], 0
            continue
        over = over + 1 if ticks - case_start > limit_ticks else 0
        if over >= 2:
            kill_tree(me)
            if state["next"] < cases:
                out_line(json.dumps({"i": state["next"], "s": "timeout"}).encode())
            out_line(b'{"done":true}')
            break
    sel.close()
    os.close(read_end)
    return ended


# ---- run mode: the public and the held-out cases in one sandbox (issue #36) ----
#
# Where the job says so ("phases": 2, a run whose budgets Node holds from outside), the held-out
# cases run after the public ones in the same sandbox, in a worker of their own forked afresh,
# which imports the candidate anew, as the held-out run of its own did before. The supervisor
# gets there only by the normal path: the public worker's completion marker came, then every
# process of the public phase is killed and reaped (the supervisor is their subreaper), and the
# sandbox must be as the public phase found it (phase_boundary_clean); what that phase wrote on
# the writable tmpfs mounts is removed. Then it writes its ready line; Node writes the held-out
# job to its stdin only then, so no process of the public phase ever sees a held-out input; and
# once read, the start line, after which the held-out worker runs. Both lines carry the run's
# key, which Node wrote first on stdin and the supervisor read before forking anything; the
# public worker overwrites its copy before the candidate runs, so no process of the candidate
# can write them (not even straight to Node through bwrap's pid 1, which holds the channel,
# were pidfd_getfd not refused by the seccomp filter).
# Anything else (a budget stop, a crash, no marker, a process left, a changed sandbox) and the
# supervisor ends as before, after the public phase, and the held-out cases get a run of their
# own. What the held-out phase cannot be kept from is what no process can reset without
# privileges: the pid counter, the network namespace's counters and sockets, the time, and what
# the supervisor's memory (which its worker is forked from) holds of the public phase's lines;
# none of it carries a held-out input, which no public process had. (POSIX message queues and
# the keyrings are refused by the seccomp filter; the keyring check below stays for a sandbox
# without it.)

PHASE_KEY_BYTES = 32
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}


def phase_key(job):
    """The run's key (hex, from Node on stdin), read into a buffer of its own, or None."""
    if job.get("phases") != 2:
        return None
    key = bytearray(PHASE_KEY_BYTES)
    view = memoryview(key)
    got = 0
    while got < PHASE_KEY_BYTES:
        n = os.readv(0, [view[got:]])
        if n <= 0:
            return None
        got += n
    if any(c not in b"0123456789abcdef" for c in key):
        return None
    return key


def phase_line(kind, key):
    """The supervisor's line `{"phase":kind,"key":key}` (runBudget.ts phaseLines)."""
    return b'{"phase":"' + kind + b'","key":"' + key + b'"}'


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def proc_pids():
    return {int(name) for name in os.listdir("/proc") if name.isdigit()}


def writable_tmpfs(mounts):
    """The mount points of the sandbox's writable tmpfs mounts (/, /dev, /dev/shm, /tmp)."""
    roots = []
    for line in mounts.decode("utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "tmpfs" and "rw" in fields[3].split(","):
            roots.append(fields[1])
    return roots


def entry_identity(path, st):
    ident = (st.st_mode, st.st_ino, st.st_dev, st.st_uid, st.st_gid)
    if stat.S_ISLNK(st.st_mode):
        return ident + (os.readlink(path),)
    if stat.S_ISREG(st.st_mode):
        return ident + (st.st_size, st.st_ctime_ns)
    return ident


def tree_state(roots):
    """path -> identity of every entry of the writable tmpfs mounts (never crossing into another
    mount): its type and mode, inode, owner, a link's target, a file's size and change time."""
    state = {}
    for root in roots:
        top = os.lstat(root)
        state[root] = entry_identity(root, top)
        todo = [root]
        while todo:
            folder = todo.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    st = os.lstat(entry.path)
                    state[entry.path] = entry_identity(entry.path, st)
                    if stat.S_ISDIR(st.st_mode) and st.st_dev == top.st_dev:
                        todo.append(entry.path)
    return state


def restore_trees(roots, before):
    """Removes what was added to the writable tmpfs mounts since `before`; False when anything
    that was there is gone or changed, or what was added cannot all be removed."""
    now = tree_state(roots)
    if any(now.get(path) != ident for path, ident in before.items()):
        return False
    for path in sorted((p for p in now if p not in before), key=lambda p: p.count("/"), reverse=True):
        if stat.S_ISDIR(now[path][0]):
            os.rmdir(path)
        else:
            os.unlink(path)
    return tree_state(roots) == before


def keyring_sizes():
    """Bytes of the user and user-session keyrings' contents (per user namespace, so this run's)."""
    import ctypes
    nr = KEYCTL_SYSCALL.get(os.uname().machine)
    if nr is None:
        raise OSError("no keyctl syscall number for this machine")
    libc = ctypes.CDLL(None, use_errno=True)
    long = ctypes.c_long
    # KEYCTL_READ (11) with no buffer: the size of the keyring's list of keys.
    return tuple(libc.syscall(long(nr), long(11), long(spec), ctypes.c_void_p(None), long(0)) for spec in (-4, -5))


def own_state():
    """What another process of the sandbox's user may change in the supervisor (and a worker
    forked from it would inherit: its limits, priority, scheduling, CPUs, OOM score, autogroup),
    and the run's System V IPC objects and keyrings."""
    texts = []
    for path in ("/proc/self/limits", "/proc/self/oom_score_adj", "/proc/self/autogroup",
                 "/proc/sysvipc/msg", "/proc/sysvipc/sem", "/proc/sysvipc/shm"):
        try:
            texts.append(read_bytes(path))
        except FileNotFoundError:
            texts.append(None)
    return (texts, os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0),
            os.sched_getparam(0).sched_priority, sorted(os.sched_getaffinity(0)), keyring_sizes())


def sandbox_state():
    """The sandbox as the public phase finds it, before anything of the candidate's runs."""
    mounts = read_bytes("/proc/self/mounts")
    roots = writable_tmpfs(mounts)
    return {"pids": proc_pids(), "mounts": mounts, "roots": roots, "files": tree_state(roots), "own": own_state()}


def phase_boundary_clean(start):
    """After the public phase (kill_tree done): whether the held-out phase finds the sandbox as
    the public phase found it: no process of it left, the same mounts, the writable tmpfs
    mounts holding exactly what they held (what was added is removed here; anything changed
    fails), no System V IPC object or key, the supervisor's own attributes unchanged. Anything
    unreadable fails too: the held-out cases then get a sandbox of their own."""
    # Which check failed goes to stderr (the trace's, never a grade's or a model's): the held-out
    # cases then get their own sandbox, which is always correct, and the trace says why.
    checks = (
        ("a process of the public phase", lambda: proc_pids() == start["pids"]),
        ("the mounts", lambda: read_bytes("/proc/self/mounts") == start["mounts"]),
        ("the writable folders", lambda: restore_trees(start["roots"], start["files"])),
        ("the supervisor's own state", lambda: own_state() == start["own"]),
    )
    for name, check in checks:
        try:
            clean = check()
        except Exception:
            clean = False
        if not clean:
            os.write(2, ("trusted runner: held-out cases in a sandbox of their own: %s changed\n" % name).encode())
            return False
    return True


def read_held_out_job(program):
    """The held-out job Node writes on stdin after the ready line ({"cases": [...]}), or None."""
    chunks = []
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    try:
        held = json.loads(b"".join(chunks))
    except ValueError:
        return None
    if type(held) is not dict or type(held.get("cases")) is not list:
        return None
    return {"program": program, "cases": held["cases"]}


def supervise(job, channel, out_line):
    """Forks the worker(s) and watches them; the only writer of the result channel to Node."""
    # Before the fork, so that the worker never sees a dumpable supervisor.
    harden_supervisor()
    me = os.getpid()
    key = phase_key(job)
    start = None
    if key is not None:
        try:
            start = sandbox_state()
        except Exception:
            start = None  # never a second phase
    ended = run_phase(job, channel, out_line, key)
    kill_tree(me)
    if not ended or start is None or not phase_boundary_clean(start):
        return
    key_text = bytes(key)
    ready = phase_line(b"ready", key_text)
    os.write(2, b"\n" + ready + b"\n")  # where the trace's stderr of the held-out phase starts
    out_line(b"\n" + ready)
    held = read_held_out_job(job["program"])
    if held is None:
        return
    # As the held-out run of its own had it: everything the supervisor holds by now is never
    # walked by the collector while the candidate's objects are.
    gc.freeze()
    out_line(phase_line(b"held_out", key_text))
    run_phase(held, channel, out_line, key)
    kill_tree(me)


def main():
    job = json.load(open(sys.argv[1], encoding="utf-8"))
    gc.freeze()
    gc.enable()
    # Results go to a private copy of stdout; the program's own prints go to stderr, so they
    # cannot interleave with (or be mistaken for) result lines.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def out_line(line):
        channel.write(line + b"\n")
        channel.flush()

    def out(record):
        out_line(json.dumps(record, separators=(",", ":")).encode("utf-8"))

    if job["mode"] == "prepare":
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
        prepare(job, out)
    else:
        supervise(job, channel, out_line)
        channel.close()
        return
    out({"done": True})
    channel.close()


if __name__ == "__main__":
    main()
