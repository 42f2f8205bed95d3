# Independent implementations of the 40 QuixBugs programs, written for this project (never
# copied from the data set's reference fixes, and by another algorithm wherever one exists).
# Static text owned by the project. heldOutCases.ts places this whole file as
# python_programs/<program>.py in a sandbox of its own (never one that runs a candidate) and the
# trusted runner calls the function named like the program, exactly as it runs the reference
# fix. A held-out input is kept only when the reference fix's answer and this file's answer
# agree under the grader's own comparison; any other input is dropped and recorded, never used.
#
# Only the standard library; the functions read Node objects through the attributes the data
# set's node.py defines (successor, successors, incoming_nodes, outgoing_nodes).
import itertools
import math


def bitcount(n):
    # Counting set bits through the binary text instead of clearing the lowest bit.
    return bin(n).count("1")


def _reachable(start, goal):
    # Iterative depth-first walk with an explicit stack; identity, never equality, of nodes.
    seen = set()
    stack = [start]
    while stack:
        node = stack.pop()
        if node is goal:
            return True
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(node.successors)
    return False


def breadth_first_search(startnode, goalnode):
    return _reachable(startnode, goalnode)


def depth_first_search(startnode, goalnode):
    return _reachable(startnode, goalnode)


def bucketsort(arr, k):
    return sorted(arr)


def detect_cycle(node):
    # Remembers every node seen instead of racing two pointers.
    seen = set()
    while node is not None:
        if id(node) in seen:
            return True
        seen.add(id(node))
        node = node.successor
    return False


def find_first_in_sorted(arr, x):
    for i, v in enumerate(arr):
        if v == x:
            return i
    return -1


def find_in_sorted(arr, x):
    # Any index holding x is a correct answer (the grade checks validity); this one is the last.
    found = -1
    for i, v in enumerate(arr):
        if v == x:
            found = i
    return found


def flatten(arr):
    out = []
    stack = [iter(arr)]
    while stack:
        for item in stack[-1]:
            if type(item) is list:
                stack.append(iter(item))
                break
            out.append(item)
        else:
            stack.pop()
    return out


def gcd(a, b):
    return math.gcd(a, b)


def get_factors(n):
    factors = []
    d = 2
    while n > 1:
        if d * d > n:
            factors.append(n)
            break
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    return factors


def hanoi(height, start=1, end=3):
    # An explicit stack of pending work instead of recursion.
    steps = []
    work = [("solve", height, start, end)]
    while work:
        kind, h, a, b = work.pop()
        if kind == "move":
            steps.append((a, b))
            continue
        if h == 0:
            continue
        spare = 6 - a - b
        work.append(("solve", h - 1, spare, b))
        work.append(("move", 0, a, b))
        work.append(("solve", h - 1, a, spare))
    return steps


def is_valid_parenthesization(parens):
    # Removing matched pairs until none is left.
    text = parens
    while "()" in text:
        text = text.replace("()", "")
    return text == ""


def kheapsort(arr, k):
    return sorted(arr)


def knapsack(capacity, items):
    # Every subset (the generated item lists are short).
    best = 0
    for mask in range(1 << len(items)):
        weight = value = 0
        for i, (w, v) in enumerate(items):
            if mask >> i & 1:
                weight += w
                value += v
        if weight <= capacity and value > best:
            best = value
    return best


def kth(arr, k):
    return sorted(arr)[k]


def lcs_length(s, t):
    # Longest common substring by trying every substring of s.
    best = 0
    for i in range(len(s)):
        for j in range(i + 1, len(s) + 1):
            if j - i > best and s[i:j] in t:
                best = j - i
    return best


def levenshtein(source, target):
    # The bottom-up table (Wagner-Fischer) instead of recursion.
    prev = list(range(len(target) + 1))
    for i, a in enumerate(source, 1):
        cur = [i]
        for j, b in enumerate(target, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = cur
    return prev[-1]


def lis(arr):
    # The quadratic table instead of patience sorting.
    best = [1] * len(arr)
    for i in range(len(arr)):
        for j in range(i):
            if arr[j] < arr[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best) if best else 0


def longest_common_subsequence(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.append(a[i])
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return "".join(out)


def max_sublist_sum(arr):
    # The docstring's definition itself: every sublist, the empty one included.
    return max(sum(arr[i:j]) for i in range(len(arr) + 1) for j in range(i, len(arr) + 1))


def mergesort(arr):
    return sorted(arr)


def minimum_spanning_tree(weight_by_edge):
    # Prim's algorithm (the reference is Kruskal's); edges keep the input's own key tuples.
    adjacent = {}
    for (u, v), w in weight_by_edge.items():
        adjacent.setdefault(u, []).append((w, (u, v), v))
        adjacent.setdefault(v, []).append((w, (u, v), u))
    if not adjacent:
        return set()
    first = min(adjacent, key=repr)
    inside = {first}
    tree = set()
    while len(inside) < len(adjacent):
        w, edge, other = min(
            ((w, e, o) for n in inside for (w, e, o) in adjacent[n] if o not in inside),
            key=lambda t: (t[0], repr(t[1])),
        )
        inside.add(other)
        tree.add(edge)
    return tree


def next_palindrome(digit_list):
    # Counting upwards from the number itself.
    n = int("".join(str(d) for d in digit_list)) + 1
    while str(n) != str(n)[::-1]:
        n += 1
    return [int(c) for c in str(n)]


def next_permutation(perm):
    # The smallest arrangement greater than perm, from all of them (perm is short).
    current = tuple(perm)
    bigger = [p for p in itertools.permutations(perm) if p > current]
    return list(min(bigger))


def pascal(n):
    return [[math.comb(r, c) for c in range(r + 1)] for r in range(n)]


def possible_change(coins, total):
    # Counting table over totals (the reference recurses).
    if total < 0:
        return 0
    ways = [1] + [0] * total
    for coin in coins:
        for t in range(coin, total + 1):
            ways[t] += ways[t - coin]
    return ways[total]


def powerset(arr):
    # Binary counting: subset m holds arr[i] when bit (n-1-i) of m is set; that is the order
    # the docstring's example lists.
    n = len(arr)
    return [[arr[i] for i in range(n) if m >> (n - 1 - i) & 1] for m in range(1 << n)]


def quicksort(arr):
    return sorted(arr)


def reverse_linked_list(node):
    # Collects the nodes first, then relinks them back to front.
    nodes = []
    while node is not None:
        nodes.append(node)
        node = node.successor
    for i, n in enumerate(nodes):
        n.successor = nodes[i - 1] if i > 0 else None
    return nodes[-1] if nodes else None


def rpn_eval(tokens):
    # Builds the expression tree from the right end, then evaluates it.
    position = [len(tokens)]

    def parse():
        position[0] -= 1
        token = tokens[position[0]]
        if type(token) is not str:
            return token
        right = parse()
        left = parse()
        return (token, left, right)

    def evaluate(tree):
        if type(tree) is not tuple:
            return tree
        op, left, right = tree
        a = evaluate(left)
        b = evaluate(right)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        return a / b

    tree = parse()
    return evaluate(tree)


def _bellman_ford(nodes, edges, source):
    dist = {v: float("inf") for v in nodes}
    dist[source] = 0
    for _ in range(len(nodes)):
        for (u, v), w in edges.items():
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    return dist


def shortest_path_length(length_by_edge, startnode, goalnode):
    # Relaxation to a fixed point over node identities (no heap at all).
    nodes = {id(startnode), id(goalnode)}
    for u, v in length_by_edge:
        nodes.add(id(u))
        nodes.add(id(v))
    edges = {(id(u), id(v)): w for (u, v), w in length_by_edge.items()}
    return _bellman_ford(nodes, edges, id(startnode))[id(goalnode)]


def shortest_path_lengths(n, length_by_edge):
    # Bellman-Ford from every source (the reference is Floyd-Warshall).
    out = {}
    for i in range(n):
        dist = _bellman_ford(range(n), length_by_edge, i)
        for j in range(n):
            out[i, j] = dist[j]
    return out


def shortest_paths(source, weight_by_edge):
    # The answer names the source and every edge's target, as the docstring's example does.
    names = {source} | {v for _, v in weight_by_edge}
    everything = names | {u for u, _ in weight_by_edge}
    dist = _bellman_ford(everything, weight_by_edge, source)
    return {v: dist[v] for v in names}


def shunting_yard(tokens):
    # Precedence climbing into a tree, then the tree in postfix order.
    precedence = {"+": 1, "-": 1, "*": 2, "/": 2}
    position = [0]

    def climb(min_prec):
        left = tokens[position[0]]
        position[0] += 1
        while position[0] < len(tokens) and precedence[tokens[position[0]]] >= min_prec:
            op = tokens[position[0]]
            position[0] += 1
            right = climb(precedence[op] + 1)
            left = (op, left, right)
        return left

    def postfix(tree, out):
        if type(tree) is tuple:
            postfix(tree[1], out)
            postfix(tree[2], out)
            out.append(tree[0])
        else:
            out.append(tree)
        return out

    return postfix(climb(1), []) if tokens else []


def sieve(max):
    # Trial division of every candidate instead of crossing out multiples.
    return [n for n in range(2, max + 1) if all(n % d for d in range(2, math.isqrt(n) + 1))]


def sqrt(x, epsilon):
    # The true root; the grade accepts anything within epsilon of it (the docstring's interval).
    return math.sqrt(x)


def subsequences(a, b, k):
    return [list(c) for c in itertools.combinations(range(a, b), k)]


def to_base(num, b):
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = ""
    while num > 0:
        num, digit = divmod(num, b)
        out = alphabet[digit] + out
    return out


def topological_ordering(nodes):
    # Depth-first finishing order, reversed (the reference is Kahn-like); any valid order
    # passes the grade, which checks the edges.
    order = []
    state = {}

    def visit(node):
        state[id(node)] = 1
        for nxt in node.outgoing_nodes:
            if state.get(id(nxt)) is None:
                visit(nxt)
        state[id(node)] = 2
        order.append(node)

    for node in nodes:
        if state.get(id(node)) is None:
            visit(node)
    return order[::-1]


def wrap(text, cols):
    # Greedy: each line ends just before the last space that keeps it within cols (that space
    # starts the next line), or is cut at cols when no such space exists; the rest is the last
    # line. The same rule the public cases fix, written over positions instead of slicing.
    lines = []
    start = 0
    while len(text) - start > cols:
        cut = -1
        for p in range(start, start + cols + 1):
            if text[p] == " ":
                cut = p
        if cut == start:
            raise ValueError("no progress: the line would be empty")
        if cut == -1:
            cut = start + cols
        lines.append(text[start:cut])
        start = cut
    lines.append(text[start:])
    return lines
