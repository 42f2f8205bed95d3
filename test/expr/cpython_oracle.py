"""CPython oracle for the expression-language differential tests.

Reads JSON lines {"id", "function", "text", "inputs"?} on stdin and writes one JSON line per
request: {"id", "parses", "subset", "reason", "nodes", "depth", "values"}.

- parses: ast.parse(text, mode="eval") succeeds.
- subset: parses AND every Part 4 rule holds, checked independently of the TypeScript code:
  string bounds, tokenize-based lexical rules, node kinds, types, literal range, node count
  (ast.walk over the Expression's body, wrapper excluded) <= 128, depth (height of that same
  tree, root = 1, operator/context nodes included) <= 16, and no reachable parameter-free part
  overflows (see constant_parts: the same rule as src/expr/constantParts.ts, written again here
  from the documented rule, not from that code).
- values: only when "inputs" is given (the TypeScript test sends inputs only for expressions
  its own generator built) and the expression is inside the subset: CPython's own eval of the
  generator-built expression, or "value_out_of_range" when any intermediate exceeds 1,000,000.
"""
import ast
import io
import json
import sys
import tokenize
import warnings

PARAMS = {"clamp": ["x", "lo", "hi"], "total": ["unit", "qty", "fee"]}
LIMIT = 1_000_000
ALLOWED_BINOPS = (ast.Add, ast.Sub, ast.Mult)
ALLOWED_UNARY = (ast.UAdd, ast.USub)
ALLOWED_CMP = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


class Outside(Exception):
    pass


def lexical(text):
    raw = text.encode("utf-8")
    if len(raw) > 256 or any(b < 0x20 or b > 0x7E for b in raw):
        raise Outside("bounds")
    if "\\" in text:
        raise Outside("continuation")
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            raise Outside("comment")
        if tok.type == tokenize.NUMBER:
            s = tok.string
            if not s.isdigit() or len(s) > 7:
                raise Outside("number")
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
            if depth > 16:
                raise Outside("nesting")
        if tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1


def height(node):
    children = list(ast.iter_child_nodes(node))
    return 1 + max((height(c) for c in children), default=0)


def typeof(node, params):
    if isinstance(node, ast.Constant):
        if type(node.value) is not int:
            raise Outside("constant")
        if abs(node.value) > LIMIT:
            raise Outside("literal")
        return "int"
    if isinstance(node, ast.Name):
        if node.id not in params or "_" in node.id or not isinstance(node.ctx, ast.Load):
            raise Outside("name")
        return "int"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ALLOWED_UNARY):
        if typeof(node.operand, params) != "int":
            raise Outside("type")
        return "int"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ALLOWED_BINOPS):
        if typeof(node.left, params) != "int" or typeof(node.right, params) != "int":
            raise Outside("type")
        return "int"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ALLOWED_CMP):
        if typeof(node.left, params) != "int" or typeof(node.comparators[0], params) != "int":
            raise Outside("type")
        return "bool"
    if isinstance(node, ast.IfExp):
        if typeof(node.test, params) != "bool":
            raise Outside("type")
        if typeof(node.body, params) != "int" or typeof(node.orelse, params) != "int":
            raise Outside("type")
        return "int"
    raise Outside("node")


def checked(v):
    if abs(v) > LIMIT:
        raise Outside("value_out_of_range")
    return v


def mirror(node, env):
    """Evaluates with the same per-step range checks; only the selected branch runs."""
    if isinstance(node, ast.Constant):
        return checked(node.value)
    if isinstance(node, ast.Name):
        return checked(env[node.id])
    if isinstance(node, ast.UnaryOp):
        v = mirror(node.operand, env)
        return checked(-v if isinstance(node.op, ast.USub) else +v)
    if isinstance(node, ast.BinOp):
        a = mirror(node.left, env)
        b = mirror(node.right, env)
        if isinstance(node.op, ast.Add):
            return checked(a + b)
        if isinstance(node.op, ast.Sub):
            return checked(a - b)
        return checked(a * b)
    if isinstance(node, ast.IfExp):
        return mirror(node.body if compare(node.test, env) else node.orelse, env)
    raise Outside("node")


def parameter_free(node):
    return not any(isinstance(n, ast.Name) for n in ast.walk(node))


def compare(c, env):
    a = mirror(c.left, env)
    b = mirror(c.comparators[0], env)
    op = c.ops[0]
    return {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b, ast.Eq: a == b, ast.NotEq: a != b}[type(op)]


def constant_parts(node):
    """Validation-time rule: every reachable maximal parameter-free subtree is evaluated (with
    the per-step range checks); a conditional with a parameter-free condition reaches only its
    selected branch, one whose condition uses a parameter reaches both. Raises
    Outside("value_out_of_range") for an oversized constant part."""
    if parameter_free(node):
        if isinstance(node, ast.Compare):
            compare(node, {})
        else:
            mirror(node, {})
        return
    if isinstance(node, ast.IfExp) and parameter_free(node.test):
        constant_parts(node.body if compare(node.test, {}) else node.orelse)
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            constant_parts(child)


def answer(req):
    text = req["text"]
    params = PARAMS[req["function"]]
    out = {"id": req["id"], "parses": False, "subset": False, "reason": "", "nodes": None, "depth": None, "values": None}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        out["reason"] = "parse: " + type(e).__name__
        return out
    out["parses"] = True
    out["nodes"] = sum(1 for _ in ast.walk(tree.body))
    out["depth"] = height(tree.body)
    try:
        lexical(text)
        typeof(tree.body, params)
        if typeof(tree.body, params) != "int":
            raise Outside("result type")
        if out["nodes"] > 128:
            raise Outside("nodes")
        if out["depth"] > 16:
            raise Outside("depth")
        constant_parts(tree.body)
    except Outside as e:
        out["reason"] = str(e)
        return out
    except (tokenize.TokenError, SyntaxError, RecursionError) as e:
        out["reason"] = "lexical: " + type(e).__name__
        return out
    out["subset"] = True
    if req.get("inputs") is not None:
        code = compile(tree, "<generated>", "eval")
        values = []
        for inputs in req["inputs"]:
            env = dict(zip(params, inputs))
            try:
                expected = mirror(tree.body, env)
            except Outside as e:
                values.append(str(e))
                continue
            # CPython itself computes the value of the generator-built expression.
            actual = eval(code, {"__builtins__": {}}, env)
            if actual != expected or type(actual) is not int:
                values.append("oracle_disagreement")
            else:
                values.append(actual)
        out["values"] = values
    return out


def answer_source(req):
    """Source mode: is this a module of exactly the two plain functions, each a single return,
    and does each return value have the same AST as our extracted expression text?"""
    out = {"id": req["id"], "parses": False, "shape": False, "same_expressions": False}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(req["source"], mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return out
    out["parses"] = True
    found = {}
    for stmt in module.body:
        if type(stmt) is not ast.FunctionDef or stmt.name not in PARAMS or stmt.name in found:
            return out
        a = stmt.args
        plain = (not a.posonlyargs and a.vararg is None and not a.kwonlyargs and a.kwarg is None
                 and not a.defaults and not a.kw_defaults and all(x.annotation is None for x in a.args)
                 and [x.arg for x in a.args] == PARAMS[stmt.name] and stmt.returns is None
                 and not stmt.decorator_list and not getattr(stmt, "type_params", None))
        if not plain or len(stmt.body) != 1 or type(stmt.body[0]) is not ast.Return or stmt.body[0].value is None:
            return out
        found[stmt.name] = stmt.body[0].value
    if set(found) != set(PARAMS):
        return out
    out["shape"] = True
    ours = req.get("expressions")
    if ours:
        try:
            out["same_expressions"] = all(
                ast.dump(ast.parse(ours[name], mode="eval").body) == ast.dump(found[name]) for name in PARAMS)
        except SyntaxError:
            out["same_expressions"] = False
    return out


def main():
    sys.setrecursionlimit(10000)
    for line in sys.stdin:
        if line.strip():
            req = json.loads(line)
            sys.stdout.write(json.dumps(answer_source(req) if "source" in req else answer(req)) + "\n")


if __name__ == "__main__":
    main()
