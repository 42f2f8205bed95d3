/* global document, tca */
// Shared DOM helpers of the report viewer. Every string from the evidence reaches the page
// through createTextNode/textContent, never through innerHTML or an attribute that can run code:
// that is the escaping rule of the whole viewer. Attributes are limited to a fixed allow-list.

const SVG_NS = "http://www.w3.org/2000/svg";
const ALLOWED_ATTRIBUTES = new Set([
  "class",
  "id",
  "open",
  "colspan",
  "title",
  "data-status",
  "data-outcome",
  "data-condition",
  "data-testid",
  "width",
  "height",
  "x",
  "y",
  "viewBox",
  "fill",
  "text-anchor",
  "type",
  "value",
  "checked",
  "aria-label",
]);

function setAttributes(node, attributes) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    // href only as an in-page fragment (the outline's links): never a URL that could leave the page or run code.
    if (name === "href" && /^#[A-Za-z0-9_-]+$/.test(String(value))) {
      node.setAttribute(name, String(value));
      continue;
    }
    if (!ALLOWED_ATTRIBUTES.has(name)) throw new Error("attribute not allowed in the report viewer: " + name);
    node.setAttribute(name, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (typeof child === "string" || typeof child === "number" || typeof child === "boolean")
      node.appendChild(document.createTextNode(String(child)));
    else node.appendChild(child);
  }
}

/** el("td", {class: "num"}, "text", otherNode): text children always become text nodes. */
tca.el = function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
};

tca.svg = function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
};

tca.text = function text(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
};

tca.TEXT_LIMIT = 2000;

/** A <pre> showing at most TEXT_LIMIT characters, with a button that shows the whole text. */
tca.boundedText = function boundedText(value, limit) {
  // Objects: one line when short, indented when long.
  const compact = typeof value === "string" ? value : JSON.stringify(value);
  const full =
    typeof value === "string" || compact === undefined || compact.length <= 160
      ? compact
      : JSON.stringify(value, null, 2);
  const max = limit || tca.TEXT_LIMIT;
  const pre = tca.el("pre", { class: "bounded" });
  if (full === undefined || full.length <= max) {
    pre.textContent = full === undefined ? "" : full;
    return pre;
  }
  pre.textContent = full.slice(0, max);
  const button = tca.el("button", { type: "button", class: "show-all" }, "show all " + full.length + " characters");
  const note = tca.el("div", { class: "muted" }, "… ", String(full.length - max), " more characters ", button);
  button.addEventListener("click", () => {
    pre.textContent = full;
    note.remove();
  });
  return tca.el("div", { class: "bounded-wrap" }, pre, note);
};

/**
 * A labeled row: the name in the first column and everything else in one value element in the
 * second, so a text after a badge never flows into the label column as a grid item of its own.
 */
tca.field = function field(name, ...content) {
  return tca.el(
    "div",
    { class: "field" },
    tca.el("span", { class: "name" }, name),
    tca.el("div", { class: "value" }, ...content),
  );
};

/** A code (unknown_action, script_exhausted) that may wrap only after its underscores. */
tca.code = function code(text) {
  const parts = String(text).split(/(?<=_)/);
  const node = tca.el("span", { class: "mono code" });
  parts.forEach((part, index) => {
    if (index > 0) node.appendChild(tca.el("wbr", null));
    node.appendChild(document.createTextNode(part));
  });
  return node;
};

/** A <details> whose body is built the first time it opens: large traces stay responsive. */
tca.lazyDetails = function lazyDetails(attributes, summaryContent, buildBody, openNow) {
  const details = tca.el("details", attributes);
  details.appendChild(tca.el("summary", null, summaryContent));
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    details.appendChild(tca.el("div", { class: "body" }, buildBody()));
  };
  details.addEventListener("toggle", () => {
    if (details.open) build();
  });
  if (openNow) {
    details.open = true;
    build();
  }
  return details;
};

/** Paginates rows: renders only one page of `pageSize` at a time. */
tca.paginated = function paginated(items, pageSize, renderItem) {
  const container = tca.el("div", { class: "paginated" });
  const list = tca.el("div", { class: "page" });
  const status = tca.el("span", { class: "muted" });
  const previous = tca.el("button", { type: "button" }, "previous");
  const next = tca.el("button", { type: "button" }, "next");
  const pages = Math.max(1, Math.ceil(items.length / pageSize));
  let page = 0;
  const show = () => {
    list.replaceChildren(...items.slice(page * pageSize, (page + 1) * pageSize).map(renderItem));
    status.textContent = "page " + (page + 1) + " of " + pages + " (" + items.length + " items)";
    previous.disabled = page === 0;
    next.disabled = page >= pages - 1;
  };
  previous.addEventListener("click", () => {
    page = Math.max(0, page - 1);
    show();
  });
  next.addEventListener("click", () => {
    page = Math.min(pages - 1, page + 1);
    show();
  });
  show();
  if (pages > 1) container.appendChild(tca.el("div", { class: "pager" }, previous, status, next));
  container.appendChild(list);
  return container;
};

/** The page's verdict has id "verdict"; nested verdicts (a check's run) pass nested = true. */
tca.verdictBox = function verdictBox(verdict, nested) {
  return tca.el(
    "section",
    { class: "verdict tone-" + verdict.tone, id: nested ? null : "verdict" },
    tca.el("div", { class: "headline", id: nested ? null : "verdict-headline" }, verdict.headline),
    tca.el(
      "ul",
      null,
      verdict.details.map((line) => tca.el("li", null, line)),
    ),
  );
};

tca.kindLabel = function kindLabel(label, nested) {
  return tca.el(
    "section",
    { class: "kind-label" + (label.pipelineCheck ? " pipeline-check" : ""), id: nested ? null : "kind-label" },
    tca.el("span", { class: "title" }, label.title),
    " — ",
    label.explanation,
    tca.el("span", { class: "muted" }, " (kind: ", label.kind, ")"),
  );
};

tca.problemsBox = function problemsBox(problems, nested) {
  if (!problems || problems.length === 0) return null;
  return tca.el(
    "section",
    { class: "problems", id: nested ? null : "problems" },
    tca.el("strong", null, "Evidence problems"),
    tca.el(
      "ul",
      null,
      problems.map((p) => tca.el("li", null, p)),
    ),
  );
};

tca.table = function table(headers, rows, attributes) {
  return tca.el(
    "table",
    attributes,
    tca.el(
      "thead",
      null,
      tca.el(
        "tr",
        null,
        headers.map((h) =>
          tca.el(
            "th",
            typeof h === "object" && h !== null ? { class: h.class } : null,
            typeof h === "object" && h !== null ? h.label : h,
          ),
        ),
      ),
    ),
    tca.el("tbody", null, rows),
  );
};

/** A key/value table of a JSON object, flattened to dotted paths; long values are bounded. */
tca.objectTable = function objectTable(object, attributes) {
  const rows = [];
  const walk = (value, path, depth) => {
    if (
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      depth < 6 &&
      Object.keys(value).length > 0
    ) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path ? path + "." + key : key, depth + 1);
      return;
    }
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    rows.push(
      tca.el(
        "tr",
        null,
        tca.el("th", { class: "mono" }, path),
        tca.el(
          "td",
          null,
          shown !== undefined && shown.length > 200
            ? tca.boundedText(shown, 200)
            : tca.el("span", { class: "mono" }, shown === undefined ? "" : shown),
        ),
      ),
    );
  };
  walk(object, "", 0);
  return tca.el("table", attributes, tca.el("tbody", null, rows));
};

/** Colored line diff: lines are {kind: " " | "-" | "+", text}. */
tca.diffView = function diffView(lines) {
  return tca.el(
    "div",
    { class: "diff", "data-testid": "diff" },
    lines.map((line) =>
      tca.el(
        "div",
        { class: line.kind === "+" ? "add" : line.kind === "-" ? "del" : "same" },
        line.kind + " " + line.text,
      ),
    ),
  );
};

/** A unified diff given as text: colors lines by their first character. */
tca.unifiedDiffText = function unifiedDiffText(text) {
  const lines = text.split("\n");
  return tca.el(
    "div",
    { class: "diff", "data-testid": "diff" },
    lines.map((line) => {
      const kind =
        line.startsWith("+++") || line.startsWith("---")
          ? "hunk"
          : line.startsWith("@@")
            ? "hunk"
            : line.startsWith("+")
              ? "add"
              : line.startsWith("-")
                ? "del"
                : "same";
      return tca.el("div", { class: kind }, line);
    }),
  );
};

/** Horizontal bar chart: items are {label, value}; values drawn to scale, labels as SVG text. */
tca.barChart = function barChart(title, items, unit) {
  const width = 640;
  const rowHeight = 18;
  const labelWidth = 170;
  const max = Math.max(1, ...items.map((item) => item.value));
  const height = items.length * rowHeight + 4;
  const svg = tca.svg("svg", { width, height, viewBox: "0 0 " + width + " " + height, "aria-label": title });
  items.forEach((item, index) => {
    const y = index * rowHeight + 2;
    const barWidth = Math.max(1, ((width - labelWidth - 110) * item.value) / max);
    svg.appendChild(tca.svg("text", { x: 0, y: y + 12 }, item.label));
    svg.appendChild(
      tca.svg("rect", { x: labelWidth, y, width: barWidth, height: rowHeight - 4, fill: item.color || "#0969da" }),
    );
    svg.appendChild(
      tca.svg("text", { x: labelWidth + barWidth + 4, y: y + 12 }, formatNumber(item.value) + (unit ? " " + unit : "")),
    );
  });
  return tca.el("figure", { class: "chart" }, tca.el("figcaption", null, title), svg);
};

/** The page's numbers follow src/core/numberFormat.ts: thousands separators, at most 2 decimals below 100. */
function formatNumber(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString("en-US") : String(Math.round(value * 100) / 100);
}
tca.formatNumber = formatNumber;
