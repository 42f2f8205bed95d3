# The trusted QuixBugs runner. Static text owned by the project (never model output); it runs
# inside the bubblewrap sandbox in one of two modes, always from a read-only /task:
#
#   prepare  (no program under test anywhere in the sandbox): reads the data set's test data
#            for one program and prints every public case as {input, expected, compare}. The
#            Node side keeps `expected` and never sends it into a sandbox that runs a candidate.
#   run      imports python_programs/<p>.py (the candidate, or the reference fix when the Node
#            side computes held-out expectations), calls the function on each case's INPUT ONLY
#            and prints each return value in a canonical form. Nothing here knows an expected
#            value; the comparison happens in the Node process, outside the sandbox.
#
# In `run` mode the candidate shares this process, so it can rewrite anything below. That is
# accepted by design: whatever it makes this process print, it could have returned from the
# function itself, and without the expected values it cannot know what would pass.
# Canonical values use exact type checks (never isinstance or ==), so an object with a forged
# __eq__ or a subclass of int/list is reported as "other", never as a passing value.
import hashlib
import importlib.util
import json
import math
import os
import sys

MAX_DEPTH = 200
MAX_ITEMS = 1_000_000


class TooLarge(Exception):
    pass


def canon(value, node_ids, budget, depth=0):
    """A JSON-able canonical form in which Python-equal plain values are identical.

    Built-in containers and numbers are read through the base type's own methods, so a
    subclass (defaultdict, or a candidate's class with a forged __eq__/__iter__) is described
    by what it really holds, never by what it claims.
    """
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise TooLarge()
    if value is None:
        return ["none"]
    if value is True or value is False:
        return ["n", "1" if value is True else "0"]
    if isinstance(value, int):
        return ["n", int.__repr__(value)]
    if isinstance(value, float):
        f = float.__float__(value)
        if math.isnan(f):
            return ["nan"]
        if math.isinf(f):
            return ["f", "inf" if f > 0 else "-inf"]
        if f.is_integer():
            return ["n", str(int(f))]
        return ["f", float.__repr__(f)]
    if isinstance(value, str):
        return ["s", str.__str__(value)]
    d = depth + 1
    if isinstance(value, list):
        return ["l", [canon(list.__getitem__(value, i), node_ids, budget, d) for i in range(list.__len__(value))]]
    if isinstance(value, tuple):
        return ["t", [canon(tuple.__getitem__(value, i), node_ids, budget, d) for i in range(tuple.__len__(value))]]
    if isinstance(value, (set, frozenset)):
        items = set.__iter__(value) if isinstance(value, set) else frozenset.__iter__(value)
        return ["set", sorted(json.dumps(canon(v, node_ids, budget, d), sort_keys=True) for v in items)]
    if isinstance(value, dict):
        pairs = [[json.dumps(canon(k, node_ids, budget, d), sort_keys=True), canon(v, node_ids, budget, d)] for k, v in dict.items(value)]
        pairs.sort(key=lambda p: p[0])
        return ["d", pairs]
    if node_ids is not None and id(value) in node_ids:
        return ["node", node_ids[id(value)]]
    return ["other", type(value).__name__[:40]]


def canon_text(value, node_ids):
    return json.dumps(canon(value, node_ids, [MAX_ITEMS]), sort_keys=True, separators=(",", ":"))


# ---- tagged inputs (the format the Node side also writes for held-out cases) ----

def encode_input(value, graph):
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
        return ["node", graph.node_id(value)]
    raise TypeError("cannot encode " + t.__name__)


NODE_ATTRS = ("successor", "successors", "predecessors", "incoming_nodes", "outgoing_nodes")


class GraphEncoder:
    def __init__(self):
        self.ids = {}
        self.nodes = []

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
            for attr in NODE_ATTRS:
                if not hasattr(node, attr):
                    continue
                v = getattr(node, attr)
                if v is None or type(v) is list and len(v) == 0:
                    continue
                rec[attr] = self.node_id(v) if type(v).__name__ == "Node" else [self.node_id(n) for n in v]
            out.append(rec)
            i += 1
        return out


def decode_input(tagged, nodes):
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
        return [decode_input(v, nodes) for v in tagged[1]]
    if tag == "t":
        return tuple(decode_input(v, nodes) for v in tagged[1])
    if tag == "set":
        return set(decode_input(v, nodes) for v in tagged[1])
    if tag == "d":
        return {decode_input(k, nodes): decode_input(v, nodes) for k, v in tagged[1]}
    if tag == "node":
        return nodes[int(tagged[1])]
    raise ValueError("unknown tag")


def build_nodes(specs, node_class):
    nodes = [node_class(None) for _ in specs]
    for node, spec in zip(nodes, specs):
        node.value = decode_input(spec["value"], nodes)
        for attr in NODE_ATTRS:
            v = spec.get(attr)
            if type(v) is int:
                setattr(node, attr, nodes[v])
            elif type(v) is list:
                setattr(node, attr, [nodes[j] for j in v])
            elif hasattr(node, attr):
                setattr(node, attr, None if attr == "successor" else [])
    return nodes


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
}


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def node_class(root):
    path = os.path.join(root, "python_testcases", "node.py")
    return load_module(path, "node").Node if os.path.exists(path) else None


# ---- prepare mode ----

def template_hash(text, program):
    return hashlib.sha256(text.replace(program, "{p}").encode("utf-8")).hexdigest()


def prepare(job, out):
    from json_test_templates import json_rules  # trusted, beside this file
    from handwritten_cases import handwritten   # trusted, beside this file
    program = job["program"]
    test_text = open(os.path.join("python_testcases", "test_" + program + ".py"), encoding="utf-8").read()
    h = template_hash(test_text, program)
    cases = []
    excluded = []
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
            cases.append((label, None, list(args), rule.get("adapter", "identity"), expected, compare))
    else:
        builder = handwritten(program, h)
        if builder is None:
            out({"untranscribed": h})
            return
        for label, args, adapter, expected, slow in builder(node_class("."), job["includeSlow"]):
            if slow and not job["includeSlow"]:
                excluded.append(label + ": slow case (run with --include-slow)")
                continue
            cases.append((label, GraphEncoder(), list(args), adapter, expected, {"kind": "equal"}))
    for label, graph, args, adapter, expected, compare in cases:
        inputs = {"args": [encode_input(a, graph) for a in args], "adapter": adapter}
        ids = None
        if graph is not None:
            inputs["nodes"] = graph.describe()
            ids = {key: i for key, i in graph.ids.items()}
        out({"case": {"label": label, "input": inputs, "expected": canon_text(expected, ids), "compare": compare}})
    for label in excluded:
        out({"excluded": label})


# ---- run mode ----

class CaseTimeout(BaseException):
    """Raised by the CPU-time alarm; a BaseException so that `except Exception` does not eat it."""


def on_case_alarm(signum, frame):
    raise CaseTimeout()


def run(job, out):
    import signal
    cpu_limit = float(job.get("caseCpuSeconds", 0))
    program = job["program"]
    nclass = node_class(".")
    sys.path.insert(0, os.path.join(os.getcwd(), "python_programs"))
    try:
        module = load_module(os.path.join("python_programs", program + ".py"), program)
        function = getattr(module, program)
    except BaseException as e:  # import-time failure of the file under test: a broken file
        out({"import_error": type(e).__name__})
        return
    signal.signal(signal.SIGPROF, on_case_alarm)
    for k, case in enumerate(job["cases"]):
        # Per-case CPU-time limit (process CPU, so a loaded machine does not trip it): a case
        # that never ends fails fast instead of holding the run until the wall-clock limit.
        if cpu_limit > 0:
            signal.setitimer(signal.ITIMER_PROF, cpu_limit)
        try:
            nodes = build_nodes(case.get("nodes", []), nclass) if case.get("nodes") else []
            args = [decode_input(a, nodes) for a in case["args"]]
            ids = {id(n): i for i, n in enumerate(nodes)}
            result = ADAPTERS[case["adapter"]](function(*args))
            text = canon_text(result, ids)
        except CaseTimeout:
            out({"i": k, "s": "timeout"})
            break
        except TooLarge:
            out({"i": k, "s": "too_large"})
            continue
        except RecursionError:
            out({"i": k, "s": "error", "e": "RecursionError"})
            continue
        except Exception as e:
            out({"i": k, "s": "error", "e": type(e).__name__})
            continue
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        out({"i": k, "s": "ok", "v": text})


def main():
    job = json.load(open(sys.argv[1], encoding="utf-8"))
    # Results go to a private copy of stdout; the program's own prints go to stderr, so they
    # cannot interleave with (or be mistaken for) result lines.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def out(record):
        channel.write(json.dumps(record, separators=(",", ":")) + "\n")
        channel.flush()

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    if job["mode"] == "prepare":
        prepare(job, out)
    else:
        run(job, out)
    out({"done": True})
    channel.close()


if __name__ == "__main__":
    main()
