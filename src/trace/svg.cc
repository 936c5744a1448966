// Gantt chart of a trace as a standalone SVG document (no dependencies).
// Sizes stay small for large traces: coordinates are rounded to 0.1 px, every
// label has one CSS class (its colour), each row is a <g> translated to its
// place so the rects carry no y, and hover tooltips are dropped above
// SvgOptions::max_tooltips events.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "trace/trace.hpp"

namespace hetla::trace {

namespace {

// Tableau 10 without its red (kept for transfers), then Tableau 20 extras.
constexpr const char* kTaskColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1",
                                        "#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#8cd17d", "#b6992d",
                                        "#499894", "#d37295", "#ffbe7d", "#86bcb6", "#79706e", "#d4a6c8"};
constexpr const char* kTransferColours[] = {"#e15759", "#ff9d9a", "#b2182b", "#f4a582"};

constexpr double kCharWidth = 7.0;  // rough width of a 12px sans-serif character

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// Fixed notation with at most `decimals` decimals, trailing zeros dropped.
std::string num(double v, int decimals = 1) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

/// Tick step of about range/target: 1, 2 or 5 times a power of ten.
double nice_step(double range, int target) {
  const double raw = range / std::max(1, target);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

void append(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, fmt, args...);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
  } else {
    std::string big(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(big.data(), big.size(), fmt, args...);
    out.append(big.data(), static_cast<std::size_t>(n));
  }
}

}  // namespace

std::string to_svg(const std::vector<Event>& events, int num_workers, const SvgOptions& opt) {
  if (num_workers < 1) throw std::invalid_argument("trace::to_svg: num_workers must be at least 1");
  const Summary sum = summarize(events, num_workers);  // also validates the workers

  // ---- time window ----
  double t0 = opt.t0, t1 = opt.t1;
  if (!(t1 > t0)) {
    t1 = t0;
    for (const auto& e : events) t1 = std::max(t1, e.end);
    if (!(t1 > t0)) t1 = t0 + 1e-3;  // nothing to draw: show 1 ms
  }
  const double window = t1 - t0;

  // ---- colour classes, in label order (a routine's kernels keep their
  // colours from run to run); the legend lists tasks by total time, then
  // transfers ----
  std::map<std::string, int> klass;
  std::string style;
  {
    std::vector<const Summary::Kernel*> by_label;
    for (const auto& k : sum.kernels) by_label.push_back(&k);
    std::sort(by_label.begin(), by_label.end(), [](const auto* a, const auto* b) { return a->label < b->label; });
    int ntask = 0, ntransfer = 0;
    for (const auto* k : by_label) {
      const int id = static_cast<int>(klass.size());
      const char* colour = k->transfer ? kTransferColours[ntransfer++ % std::size(kTransferColours)]
                                       : kTaskColours[ntask++ % std::size(kTaskColours)];
      klass[k->label] = id;
      append(style, ".k%d{fill:%s}", id, colour);
    }
  }
  std::vector<const Summary::Kernel*> legend;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& k : sum.kernels)
      if (k.transfer == (pass == 1)) legend.push_back(&k);

  // ---- layout ----
  std::vector<std::string> names(static_cast<std::size_t>(num_workers));
  std::size_t longest = 0;
  for (int w = 0; w < num_workers; ++w) {
    const std::size_t i = static_cast<std::size_t>(w);
    names[i] = i < opt.row_names.size() ? opt.row_names[i] : "worker " + std::to_string(w);
    longest = std::max(longest, names[i].size());
  }
  const double width = std::max(400, opt.width);
  const double rh = std::max(6, opt.row_height);
  const double left = std::max(60.0, 16 + kCharWidth * static_cast<double>(longest));
  const double right = 64;
  const double plot_w = width - left - right;
  double top = 12;
  if (!opt.title.empty()) top += 20;
  if (!opt.subtitle.empty()) top += 18;
  top += 8;
  const double axis_y = top + rh * num_workers;

  // Legend entries flow left to right, wrapping at the plot width.
  struct Entry {
    double x, y;
    std::string text;
  };
  std::vector<Entry> entries;
  double lx = left, ly = axis_y + 52;
  for (const auto* k : legend) {
    char pct[64];
    std::snprintf(pct, sizeof pct, " (%zu, %s%%)", k->count, num(100 * k->share, 1).c_str());
    std::string text = k->label + pct;
    const double w = 18 + kCharWidth * static_cast<double>(text.size()) + 18;
    if (lx + w > left + plot_w && lx > left) {
      lx = left;
      ly += 20;
    }
    entries.push_back({lx, ly, std::move(text)});
    lx += w;
  }
  const double height = (entries.empty() ? axis_y + 40 : ly + 12) + 12;

  std::string out;
  out.reserve(4096 + events.size() * (events.size() <= opt.max_tooltips ? 110 : 48));
  append(out,
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" "
         "font-family=\"sans-serif\" font-size=\"12\">\n",
         num(width).c_str(), num(height).c_str(), num(width).c_str(), num(height).c_str());
  out += "<style>" + style +
         ".bg{fill:#f4f4f4}.grid{stroke:#d0d0d0;stroke-width:0.5}.axis{stroke:#333;stroke-width:1}"
         ".t{font-size:14px;font-weight:bold}.r{text-anchor:end}.m{text-anchor:middle}.sw{stroke:#555;"
         "stroke-width:0.5}</style>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  double ty = 12;
  if (!opt.title.empty()) {
    ty += 16;
    append(out, "<text class=\"t\" x=\"%s\" y=\"%s\">%s</text>\n", num(left).c_str(), num(ty - 4).c_str(),
           xml_escape(opt.title).c_str());
    ty += 4;
  }
  if (!opt.subtitle.empty()) {
    ty += 16;
    append(out, "<text x=\"%s\" y=\"%s\">%s</text>\n", num(left).c_str(), num(ty - 4).c_str(),
           xml_escape(opt.subtitle).c_str());
  }

  // Row backgrounds, names and busy share.
  for (int w = 0; w < num_workers; ++w) {
    const double y = top + rh * w;
    const auto& ws = sum.workers[static_cast<std::size_t>(w)];
    if (w % 2 == 0)
      append(out, "<rect class=\"bg\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>\n", num(left).c_str(),
             num(y).c_str(), num(plot_w).c_str(), num(rh).c_str());
    append(out, "<text class=\"r\" x=\"%s\" y=\"%s\">%s</text>\n", num(left - 6).c_str(),
           num(y + rh / 2 + 4).c_str(), xml_escape(names[static_cast<std::size_t>(w)]).c_str());
    append(out, "<text x=\"%s\" y=\"%s\">%s%%</text>\n", num(left + plot_w + 6).c_str(),
           num(y + rh / 2 + 4).c_str(), num(100 * ws.busy / window, 1).c_str());
  }
  append(out, "<text x=\"%s\" y=\"%s\">busy</text>\n", num(left + plot_w + 6).c_str(), num(top - 4).c_str());

  // Grid and time axis: milliseconds since t0.
  const double range_ms = window * 1e3;
  const double step = nice_step(range_ms, std::max(2, static_cast<int>(plot_w / 90)));
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
  for (int i = 0; i * step <= range_ms * (1 + 1e-9); ++i) {
    const double tick = i * step;
    const double x = left + tick / range_ms * plot_w;
    append(out, "<line class=\"grid\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", num(x).c_str(), num(top).c_str(),
           num(x).c_str(), num(axis_y + 4).c_str());
    append(out, "<text class=\"m\" x=\"%s\" y=\"%s\">%s</text>\n", num(x).c_str(), num(axis_y + 17).c_str(),
           num(tick, decimals).c_str());
  }
  append(out, "<line class=\"axis\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"/>\n", num(left).c_str(),
         num(axis_y).c_str(), num(left + plot_w).c_str(), num(axis_y).c_str());
  append(out, "<text class=\"m\" x=\"%s\" y=\"%s\">time (ms)</text>\n", num(left + plot_w / 2).c_str(),
         num(axis_y + 34).c_str());

  // Events, one group per row.
  std::vector<std::vector<const Event*>> rows(static_cast<std::size_t>(num_workers));
  for (const auto& e : events) rows[static_cast<std::size_t>(e.worker)].push_back(&e);
  const bool tooltips = events.size() <= opt.max_tooltips;
  const std::string bar_h = num(rh - 4);
  for (int w = 0; w < num_workers; ++w) {
    append(out, "<g transform=\"translate(0,%s)\">\n", num(top + rh * w + 2).c_str());
    for (const Event* e : rows[static_cast<std::size_t>(w)]) {
      const double a = std::clamp(e->start, t0, t1), b = std::clamp(e->end, t0, t1);
      const double x = left + (a - t0) / window * plot_w;
      // Bars of 2 px and more end 0.5 px early, so back-to-back tasks of one
      // kernel stay distinguishable; narrower ones keep at least 0.1 px.
      const double exact = (b - a) / window * plot_w;
      const double len = exact >= 2 ? exact - 0.5 : std::max(0.1, exact);
      const int id = klass[e->label ? e->label : ""];
      append(out, "<rect class=\"k%d\" x=\"%s\" width=\"%s\" height=\"%s\"", id, num(x).c_str(), num(len).c_str(),
             bar_h.c_str());
      if (tooltips) {
        append(out, "><title>%s: %s ms at %s ms</title></rect>\n", xml_escape(e->label ? e->label : "").c_str(),
               num((e->end - e->start) * 1e3, 3).c_str(), num(e->start * 1e3, 3).c_str());
      } else {
        out += "/>\n";
      }
    }
    out += "</g>\n";
  }

  // Legend: label (count, share of all busy time).
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& en = entries[i];
    append(out, "<rect class=\"sw k%d\" x=\"%s\" y=\"%s\" width=\"12\" height=\"12\"/>", klass[legend[i]->label],
           num(en.x).c_str(), num(en.y - 10).c_str());
    append(out, "<text x=\"%s\" y=\"%s\">%s</text>\n", num(en.x + 18).c_str(), num(en.y).c_str(),
           xml_escape(en.text).c_str());
  }
  out += "</svg>\n";
  return out;
}

}  // namespace hetla::trace
