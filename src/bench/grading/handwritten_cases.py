# The cases of the QuixBugs tests that are written by hand (graph programs with Node objects,
# and the three with inline data), transcribed so that the trusted runner can ask exactly what
# each test asks, with the expected values kept out of any sandbox that runs a candidate.
# Each transcription is bound to the SHA-256 of the test file it mirrors (program name replaced
# by "{p}"): a changed test file is reported "untranscribed", never graded with stale cases.
# Static text owned by the project (trusted); it runs only in `prepare` mode.
#
# A builder yields (label, args, adapter, expected, slow[, setup]), after (SHARED, objects) where
# the test file shares module-level objects. Adapters (trusted_runner.ADAPTERS):
# "truthy" for `assert result` / `assert not result`; "node_values" for
# `[x.value for x in result]`; "linked_list" for reverse_linked_list, whose test checks both
# that the result IS the old tail node and the values along .successor (stricter than pytest in
# one respect: where the test says `assert not result`, the grade wants None exactly).

INF = float("inf")

# Yielded first by the builder of a test file whose module-level objects its tests share,
# with those objects: the runner builds them once and every case after refers to the same ones
# (trusted_runner.Scope). Its tests may then also yield a sixth item, their setup: the
# (object, attribute, value) assignments the test makes to those objects before its call.
# Every other test file builds its objects inside each test (checked for each transcription
# below against the upstream file: only detect_cycle and shortest_path_length share any).
SHARED = object()


def bfs_dfs(Node):
    station1 = Node("Westminster")
    station2 = Node("Waterloo", None, [station1])
    station3 = Node("Trafalgar Square", None, [station1, station2])
    station4 = Node("Canary Wharf", None, [station2, station3])
    station5 = Node("London Bridge", None, [station4, station3])
    station6 = Node("Tottenham Court Road", None, [station5, station4])
    yield "test1", (station6, station1), "truthy", True, False
    nodef = Node("F"); nodee = Node("E"); noded = Node("D")
    nodec = Node("C", None, [nodef]); nodeb = Node("B", None, [nodee])
    nodea = Node("A", None, [nodeb, nodec, noded])
    yield "test2", (nodea, nodee), "truthy", True, False
    nodef = Node("F"); nodee = Node("E")
    yield "test3", (nodef, nodee), "truthy", False, False
    nodef = Node("F")
    yield "test4", (nodef, nodef), "truthy", True, False
    nodef = Node("F"); nodee = Node("E"); noded = Node("D")
    nodec = Node("C", None, [nodef]); nodeb = Node("B", None, [nodee])
    nodea = Node("A", None, [nodeb, nodec, noded])
    nodee.successors = [nodea]
    yield "test5", (nodea, nodef), "truthy", True, False


def detect_cycle(Node):
    # The upstream test file's five module-level nodes, shared by all six tests; tests 2, 3 and
    # 6 relink node1 before their call (their setup), so a program that changes the nodes it
    # walks leaves the later tests a different list, as under pytest.
    node1 = Node(1); node2 = Node(2, node1); node3 = Node(3, node2); node4 = Node(4, node3); node5 = Node(5, node4)
    yield SHARED, [node1, node2, node3, node4, node5]
    yield "test1", (node5,), "truthy", False, False
    yield "test2", (node5,), "truthy", True, False, [(node1, "successor", node5)]
    yield "test3", (node2,), "truthy", True, False, [(node1, "successor", node2)]
    node6 = Node(6); node7 = Node(7, node6)
    yield "test4", (node7,), "truthy", False, False
    yield "test5", (Node(0),), "truthy", False, False
    yield "test6", (node5,), "truthy", True, False, [(node1, "successor", node2)]


def reverse_linked_list(Node):
    node1 = Node(1); node2 = Node(2, node1); node3 = Node(3, node2); node4 = Node(4, node3); node5 = Node(5, node4)
    yield "test1", (node5,), "linked_list", (node1, [1, 2, 3, 4, 5]), False
    node = Node(0)
    yield "test2", (node,), "linked_list", (node, [0]), False
    yield "test3", (None,), "linked_list", (None, []), False


def shortest_path_length(Node):
    # The upstream test file's module-level nodes and length_by_edge, shared by all four tests:
    # a program that changes the dict (or the nodes' successors) changes the later tests' input.
    node1 = Node("1"); node5 = Node("5"); node4 = Node("4", None, [node5]); node3 = Node("3", None, [node4])
    node2 = Node("2", None, [node1, node3, node4]); node0 = Node("0", None, [node2, node5])
    length_by_edge = {(node0, node2): 3, (node0, node5): 10, (node2, node1): 1, (node2, node3): 2,
                      (node2, node4): 4, (node3, node4): 1, (node4, node5): 1}
    yield SHARED, [node1, node5, node4, node3, node2, node0, length_by_edge]
    yield "test1", (length_by_edge, node0, node1), "identity", 4, False
    yield "test2", (length_by_edge, node0, node5), "identity", 7, False
    yield "test3", (length_by_edge, node2, node2), "identity", 0, False
    yield "test4", (length_by_edge, node1, node5), "identity", INF, False


def topological_ordering(Node):
    five = Node(5); seven = Node(7); three = Node(3); eleven = Node(11); eight = Node(8); two = Node(2); nine = Node(9); ten = Node(10)
    five.outgoing_nodes = [eleven]; seven.outgoing_nodes = [eleven, eight]; three.outgoing_nodes = [eight, ten]
    eleven.incoming_nodes = [five, seven]; eleven.outgoing_nodes = [two, nine, ten]
    eight.incoming_nodes = [seven, three]; eight.outgoing_nodes = [nine]
    two.incoming_nodes = [eleven]; nine.incoming_nodes = [eleven, eight]; ten.incoming_nodes = [eleven, three]
    yield "test1", ([five, seven, three, eleven, eight, two, nine, ten],), "node_values", [5, 7, 3, 11, 8, 10, 2, 9], False
    five = Node(5); zero = Node(0); four = Node(4); one = Node(1); two = Node(2); three = Node(3)
    five.outgoing_nodes = [two, zero]; four.outgoing_nodes = [zero, one]
    two.incoming_nodes = [five]; two.outgoing_nodes = [three]
    zero.incoming_nodes = [five, four]; one.incoming_nodes = [four, three]
    three.incoming_nodes = [two]; three.outgoing_nodes = [one]
    yield "test2", ([zero, one, two, three, four, five],), "node_values", [4, 5, 0, 2, 3, 1], False
    milk = Node("3/4 cup milk"); egg = Node("1 egg"); oil = Node("1 Tbl oil"); mix = Node("1 cup mix")
    syrup = Node("heat syrup"); griddle = Node("heat griddle"); pour = Node("pour 1/4 cup")
    turn = Node("turn when bubbly"); eat = Node("eat")
    milk.outgoing_nodes = [mix]; egg.outgoing_nodes = [mix]; oil.outgoing_nodes = [mix]
    mix.incoming_nodes = [milk, egg, oil]; mix.outgoing_nodes = [syrup, pour]
    griddle.outgoing_nodes = [pour]; pour.incoming_nodes = [mix, griddle]; pour.outgoing_nodes = [turn]
    turn.incoming_nodes = [pour]; turn.outgoing_nodes = [eat]
    syrup.incoming_nodes = [mix]; syrup.outgoing_nodes = [eat]; eat.incoming_nodes = [syrup, turn]
    yield "test3", ([milk, egg, oil, mix, syrup, griddle, pour, turn, eat],), "node_values", [
        "3/4 cup milk", "1 egg", "1 Tbl oil", "heat griddle", "1 cup mix", "pour 1/4 cup", "heat syrup",
        "turn when bubbly", "eat"], False


def minimum_spanning_tree(Node):
    yield "test1", ({(1, 2): 10, (2, 3): 15, (3, 4): 10, (1, 4): 10},), "identity", {(1, 2), (3, 4), (1, 4)}, False
    yield "test2", ({(1, 2): 6, (1, 3): 1, (1, 4): 5, (2, 3): 5, (2, 5): 3, (3, 4): 5, (3, 5): 6, (3, 6): 4,
                     (4, 6): 2, (5, 6): 6},), "identity", {(2, 5), (1, 3), (2, 3), (4, 6), (3, 6)}, False
    yield "test3", ({(1, 2): 6, (1, 3): 1, (2, 4): 2},), "identity", {(1, 2), (1, 3), (2, 4)}, False


def shortest_path_lengths(Node):
    graph = {(0, 2): 3, (0, 5): 5, (2, 1): -2, (2, 3): 7, (2, 4): 4, (3, 4): -5, (4, 5): -1}
    expected = {(0, 0): 0, (1, 1): 0, (2, 2): 0, (3, 3): 0, (4, 4): 0, (5, 5): 0, (0, 2): 3, (0, 5): 4,
                (2, 1): -2, (2, 3): 7, (2, 4): 2, (3, 4): -5, (4, 5): -1, (0, 1): 1, (0, 3): 10, (0, 4): 5,
                (1, 0): INF, (1, 2): INF, (1, 3): INF, (1, 4): INF, (1, 5): INF, (2, 0): INF, (2, 5): 1,
                (3, 0): INF, (3, 1): INF, (3, 2): INF, (3, 5): -6, (4, 0): INF, (4, 1): INF, (4, 2): INF,
                (4, 3): INF, (5, 0): INF, (5, 1): INF, (5, 2): INF, (5, 3): INF, (5, 4): INF}
    yield "test1", (6, graph), "identity", expected, False
    graph = {(0, 1): 3, (1, 2): 5, (2, 3): -2, (3, 4): 7}
    expected = {(0, 0): 0, (1, 1): 0, (2, 2): 0, (3, 3): 0, (4, 4): 0, (0, 1): 3, (1, 2): 5, (2, 3): -2,
                (3, 4): 7, (0, 2): 8, (0, 3): 6, (0, 4): 13, (1, 0): INF, (1, 3): 3, (1, 4): 10, (2, 0): INF,
                (2, 1): INF, (2, 4): 5, (3, 0): INF, (3, 1): INF, (3, 2): INF, (4, 0): INF, (4, 1): INF,
                (4, 2): INF, (4, 3): INF}
    yield "test2", (5, graph), "identity", expected, False
    graph = {(0, 1): 3, (2, 3): 5}
    expected = {(0, 0): 0, (1, 1): 0, (2, 2): 0, (3, 3): 0, (0, 1): 3, (2, 3): 5, (0, 2): INF, (0, 3): INF,
                (1, 0): INF, (1, 2): INF, (1, 3): INF, (2, 0): INF, (2, 1): INF, (3, 0): INF, (3, 1): INF,
                (3, 2): INF}
    yield "test3", (4, graph), "identity", expected, False
    graph = {(0, 1): 3, (1, 2): 5, (2, 0): -1}
    expected = {(0, 0): 0, (1, 1): 0, (2, 2): 0, (0, 1): 3, (1, 2): 5, (2, 0): -1, (0, 2): 8, (1, 0): 4, (2, 1): 2}
    yield "test4", (3, graph), "identity", expected, False


def shortest_paths(Node):
    graph = {("A", "B"): 3, ("A", "C"): 3, ("A", "F"): 5, ("C", "B"): -2, ("C", "D"): 7, ("C", "E"): 4,
             ("D", "E"): -5, ("E", "F"): -1}
    yield "test1", ("A", graph), "identity", {"A": 0, "C": 3, "B": 1, "E": 5, "D": 10, "F": 4}, False
    graph2 = {("A", "B"): 1, ("B", "C"): 2, ("C", "D"): 3, ("D", "E"): -1, ("E", "F"): 4}
    yield "test2", ("A", graph2), "identity", {"A": 0, "C": 3, "B": 1, "E": 5, "D": 6, "F": 9}, False
    graph3 = {("A", "B"): 1, ("B", "C"): 2, ("C", "D"): 3, ("D", "E"): -1, ("E", "D"): 1, ("E", "F"): 4}
    yield "test3", ("A", graph3), "identity", {"A": 0, "C": 3, "B": 1, "E": 5, "D": 6, "F": 9}, False


# The project's own small data set (test/fixtures/quixbugs-mini).
def mini_is_palindrome(Node):
    for i, (text, expected) in enumerate([("", True), ("a", True), ("abba", True), ("racecar", True), ("abca", False), ("ab", False)]):
        yield "test_is_palindrome[%d]" % i, (text,), "identity", expected, False
    yield "test_long_palindrome", ("ab" * 50000 + "a" + "ba" * 50000,), "truthy", True, True


def mini_linked_list_sum(Node):
    def build(values):
        first = None
        for value in reversed(values):
            first = Node(value, first)
        return first
    yield "test_empty", (None,), "identity", 0, False
    yield "test_one", (build([7]),), "identity", 7, False
    yield "test_several", (build([1, 2, 3, 4]),), "identity", 10, False


TRANSCRIBED = {
    ("breadth_first_search", "d8d514d6d4847663"): bfs_dfs,
    ("depth_first_search", "d8d514d6d4847663"): bfs_dfs,
    ("detect_cycle", "51e71334ef894361"): detect_cycle,
    ("reverse_linked_list", "ab957cf253e99e22"): reverse_linked_list,
    ("shortest_path_length", "8b4ea47dfc17121f"): shortest_path_length,
    ("topological_ordering", "0d6702f1abb79e8e"): topological_ordering,
    ("minimum_spanning_tree", "926559e804e8838d"): minimum_spanning_tree,
    ("shortest_path_lengths", "e003c94381852c23"): shortest_path_lengths,
    ("shortest_paths", "51d2deb77c459cd1"): shortest_paths,
    ("is_palindrome", "6574c3fdf3c941af"): mini_is_palindrome,
    ("linked_list_sum", "a2ab4e2a71c9408f"): mini_linked_list_sum,
}


def handwritten(program, template_hash):
    """The builder for this program's test file, or None when no transcription matches it."""
    builder = TRANSCRIBED.get((program, template_hash[:16]))
    if builder is None:
        return None
    return lambda Node, include_slow: builder(Node)
