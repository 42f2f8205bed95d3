# The task-set generator's mutation operators. Static text owned by the project (never model
# output); it runs inside the bubblewrap sandbox on a reference fix given as data in job.json,
# parses it with `ast` and NEVER executes it (no exec, no eval, no compile of program code, no
# import of it). It prints every candidate one-line mutation as a JSON line:
#   {"op": <operator>, "line": <1-based line>, "before": <line text>, "after": <line text>}
# then {"done": true}.
#
# Each operator is a small pure function from one AST node to replacement text for one source
# segment of that node, on one physical line: the candidate's line is the reference line with
# that segment rewritten, so every other byte of the file (comments and docstrings included)
# is unchanged. A candidate is kept only if the whole mutated file still parses. Lines are split
# on "\n" only, exactly as the Node side splits them.
import ast
import json
import sys

COMPARE_SWAPS = {
    ast.Lt: ["<=", ">"], ast.LtE: ["<", ">="], ast.Gt: [">=", "<"], ast.GtE: [">", "<="],
    ast.Eq: ["!="], ast.NotEq: ["=="], ast.In: ["not in"], ast.NotIn: ["in"], ast.Is: ["is not"], ast.IsNot: ["is"],
}
COMPARE_TEXT = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}
BINOP_TEXT = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}
BINOP_SWAPS = {
    ast.Add: ["-"], ast.Sub: ["+"], ast.Mult: ["+", "//"], ast.Div: ["*"], ast.FloorDiv: ["/", "%"],
    ast.Mod: ["//"], ast.Pow: ["*"], ast.LShift: [">>"], ast.RShift: ["<<"], ast.BitAnd: ["|"],
    ast.BitOr: ["&"], ast.BitXor: ["|"],
}
NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)


class Lines:
    """The file as lines (split on \\n) of UTF-8 bytes, since ast column offsets count bytes."""

    def __init__(self, source):
        self.text = source.split("\n")
        self.raw = [t.encode("utf-8") for t in self.text]

    def single(self, node):
        return getattr(node, "lineno", None) is not None and node.lineno == node.end_lineno

    def segment(self, node):
        return self.raw[node.lineno - 1][node.col_offset:node.end_col_offset].decode("utf-8")

    def replace(self, line, start, end, text):
        """The line (1-based) with bytes [start, end) replaced by text; None if nothing changes."""
        raw = self.raw[line - 1]
        new = raw[:start] + text.encode("utf-8") + raw[end:]
        return None if new == raw else new.decode("utf-8")


def between(lines, left, right, old, new):
    """Replaces the operator text `old` found between two sibling nodes on one line."""
    if not (lines.single(left) and lines.single(right) and left.lineno == right.lineno):
        return None
    raw = lines.raw[left.lineno - 1]
    gap = raw[left.end_col_offset:right.col_offset].decode("utf-8")
    # The gap holds the operator with spaces and maybe closing/opening parentheses; the
    # operator must appear exactly once for the rewrite to be unambiguous.
    if gap.count(old) != 1:
        return None
    at = left.end_col_offset + len(gap[:gap.index(old)].encode("utf-8"))
    return lines.replace(left.lineno, at, at + len(old.encode("utf-8")), new)


def whole(lines, node, text):
    if not lines.single(node):
        return None
    return lines.replace(node.lineno, node.col_offset, node.end_col_offset, text)


def flip_comparison(lines, node):
    if not isinstance(node, ast.Compare):
        return []
    found = []
    operands = [node.left] + list(node.comparators)
    for k, op in enumerate(node.ops):
        for new in COMPARE_SWAPS.get(type(op), []):
            after = between(lines, operands[k], operands[k + 1], COMPARE_TEXT[type(op)], new)
            if after is not None:
                found.append((operands[k].lineno, after))
    return found


def change_operator(lines, node):
    found = []
    if isinstance(node, ast.BinOp):
        for new in BINOP_SWAPS.get(type(node.op), []):
            after = between(lines, node.left, node.right, BINOP_TEXT[type(node.op)], new)
            if after is not None:
                found.append((node.left.lineno, after))
    elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP_SWAPS:
        for new in BINOP_SWAPS[type(node.op)]:
            after = between(lines, node.target, node.value, BINOP_TEXT[type(node.op)] + "=", new + "=")
            if after is not None:
                found.append((node.target.lineno, after))
    elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        after = between(lines, node.values[0], node.values[1], old, new)
        if after is not None:
            found.append((node.values[0].lineno, after))
    return found


def change_constant(lines, node):
    if not isinstance(node, ast.Constant):
        return []
    value = node.value
    if isinstance(value, bool):
        news = [repr(not value)]
    elif isinstance(value, int):
        news = [repr(value + 1)] + ([repr(value - 1)] if value > 0 else [])
    else:
        return []
    found = []
    for new in news:
        after = whole(lines, node, new)
        if after is not None:
            found.append((node.lineno, after))
    return found


def swap_operands(lines, node):
    pairs = []
    if isinstance(node, ast.BinOp) and isinstance(node.op, NON_COMMUTATIVE):
        pairs.append((node.left, node.right))
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and not isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
        pairs.append((node.left, node.comparators[0]))
    elif isinstance(node, ast.Call) and not node.keywords and all(not isinstance(a, ast.Starred) for a in node.args):
        pairs.extend(zip(node.args, node.args[1:]))
    found = []
    for a, b in pairs:
        if not (lines.single(a) and lines.single(b) and a.lineno == b.lineno):
            continue
        raw = lines.raw[a.lineno - 1]
        sa, sb = raw[a.col_offset:a.end_col_offset], raw[b.col_offset:b.end_col_offset]
        if sa == sb:
            continue
        new = raw[:a.col_offset] + sb + raw[a.end_col_offset:b.col_offset] + sa + raw[b.end_col_offset:]
        found.append((a.lineno, new.decode("utf-8")))
    return found


def off_by_one_loop_bound(lines, node):
    """range(...) bounds of a for loop: the end (or the start) one more or one less."""
    if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
            and node.iter.func.id == "range" and 1 <= len(node.iter.args) <= 3 and not node.iter.keywords):
        return []
    args = node.iter.args
    bounds = [args[0]] if len(args) == 1 else [args[1], args[0]]
    found = []
    for bound in bounds:
        if not lines.single(bound):
            continue
        text = lines.segment(bound)
        for delta in (" + 1", " - 1"):
            after = whole(lines, bound, "(" + text + ")" + delta if isinstance(bound, (ast.BinOp, ast.BoolOp, ast.IfExp)) else text + delta)
            if after is not None:
                found.append((bound.lineno, after))
    return found


def negate_condition(lines, node):
    if not isinstance(node, (ast.If, ast.While, ast.IfExp)):
        return []
    test = node.test
    if not lines.single(test):
        return []
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        new = lines.segment(test.operand)
        if isinstance(test.operand, (ast.BoolOp, ast.Compare, ast.BinOp, ast.IfExp)):
            new = "(" + new + ")"
    else:
        new = "not (" + lines.segment(test) + ")"
    after = whole(lines, test, new)
    return [] if after is None else [(test.lineno, after)]


def remove_conditional(lines, node):
    """The guard of an if (or elif) always true: its body always runs."""
    if not isinstance(node, ast.If) or not lines.single(node.test):
        return []
    after = whole(lines, node.test, "True")
    return [] if after is None else [(node.test.lineno, after)]


def statement_to_pass(lines, node, kinds):
    if not isinstance(node, kinds) or not lines.single(node):
        return []
    raw = lines.raw[node.lineno - 1]
    # Only a statement that is the whole line (indentation aside): no `a = 1; b = 2`.
    if raw[:node.col_offset].strip() != b"" or raw[node.end_col_offset:].split(b"#")[0].strip() not in (b"",):
        return []
    after = lines.replace(node.lineno, node.col_offset, node.end_col_offset, "pass")
    return [] if after is None else [(node.lineno, after)]


def remove_assignment(lines, node):
    return statement_to_pass(lines, node, (ast.Assign, ast.AugAssign, ast.AnnAssign))


def remove_statement(lines, node):
    # A docstring (or any bare string) is documentation, never a statement to remove.
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return []
    return statement_to_pass(lines, node, (ast.Expr, ast.Return, ast.Raise, ast.Break, ast.Continue))


def swap_break_continue(lines, node):
    if isinstance(node, ast.Break):
        after = whole(lines, node, "continue")
    elif isinstance(node, ast.Continue):
        after = whole(lines, node, "break")
    else:
        return []
    return [] if after is None else [(node.lineno, after)]


def local_names(function):
    """Parameters and names assigned in one function (its own body, not nested functions')."""
    names = set()
    a = function.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + ([a.vararg] if a.vararg else []) + ([a.kwarg] if a.kwarg else []):
        names.add(arg.arg)
    stack = list(function.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.comprehension):
            # A comprehension's own variable exists only inside it: not a local to swap in.
            stack.extend([n.iter] + list(n.ifs))
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    return names


def wrong_variable(lines, node, scope):
    """A local variable read replaced by another local variable of the same function."""
    if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load) or scope is None or node.id not in scope:
        return []
    found = []
    for other in sorted(scope):
        if other == node.id:
            continue
        after = whole(lines, node, other)
        if after is not None:
            found.append((node.lineno, after))
    return found


OPERATORS = [
    ("flip_comparison", flip_comparison),
    ("change_operator", change_operator),
    ("change_constant", change_constant),
    ("swap_operands", swap_operands),
    ("off_by_one_loop_bound", off_by_one_loop_bound),
    ("negate_condition", negate_condition),
    ("remove_conditional", remove_conditional),
    ("remove_assignment", remove_assignment),
    ("remove_statement", remove_statement),
    ("swap_break_continue", swap_break_continue),
]


def scoped_nodes(tree):
    """Every node with the local names of its innermost enclosing function (None at module level)."""
    stack = [(tree, None)]
    while stack:
        node, scope = stack.pop(0)
        yield node, scope
        inner = local_names(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
        for child in ast.iter_child_nodes(node):
            stack.append((child, inner))


def candidates(source):
    tree = ast.parse(source)
    lines = Lines(source)
    seen = set()
    for node, scope in scoped_nodes(tree):
        produced = [(name, found) for name, fn in OPERATORS for found in fn(lines, node)]
        produced += [("wrong_variable", found) for found in wrong_variable(lines, node, scope)]
        for name, (line, after) in produced:
            if (line, after) in seen:
                continue
            seen.add((line, after))
            mutated = list(lines.text)
            mutated[line - 1] = after
            try:
                ast.parse("\n".join(mutated))
            except (SyntaxError, ValueError):
                continue
            yield {"op": name, "line": line, "before": lines.text[line - 1], "after": after}


def main():
    job = json.load(open(sys.argv[1], encoding="utf-8"))
    out = sys.stdout
    try:
        for c in candidates(job["source"]):
            out.write(json.dumps(c, sort_keys=True) + "\n")
    except SyntaxError as e:
        out.write(json.dumps({"error": "the reference fix does not parse: line %s" % e.lineno}) + "\n")
    out.write(json.dumps({"done": True}) + "\n")


if __name__ == "__main__":
    main()
