// Trace recorder, summaries (busy share, load imbalance), the Chrome trace
// JSON and the SVG Gantt chart.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/runtime.hpp"
#include "trace/trace.hpp"

namespace {

using hetla::trace::Event;
using hetla::trace::Kind;
namespace trace = hetla::trace;

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
  return n;
}

/// Checks that `xml` is one balanced element tree: every tag closed in order,
/// quotes balanced inside tags, no stray '<' or '>', only the five predefined
/// entities. Returns "" or what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  std::size_t i = 0;
  while (i < xml.size()) {
    const char c = xml[i];
    if (c == '&') {
      bool ok = false;
      for (const char* ent : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        if (xml.compare(i, std::string(ent).size(), ent) == 0) ok = true;
      if (!ok) return "bad entity at " + std::to_string(i);
      ++i;
      continue;
    }
    if (c == '>') return "stray '>' at " + std::to_string(i);
    if (c != '<') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    bool quoted = false;
    while (j < xml.size() && (quoted || xml[j] != '>')) {
      if (xml[j] == '"') quoted = !quoted;
      if (xml[j] == '<') return "'<' inside a tag at " + std::to_string(j);
      if (quoted && xml[j] == '&') {
        bool ok = false;
        for (const char* ent : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
          if (xml.compare(j, std::string(ent).size(), ent) == 0) ok = true;
        if (!ok) return "bad entity in attribute at " + std::to_string(j);
      }
      ++j;
    }
    if (j >= xml.size()) return "unterminated tag at " + std::to_string(i);
    std::string tag = xml.substr(i + 1, j - i - 1);
    i = j + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "</" + name + "> does not close <" +
                                                       (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /\n"));
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

/// Fill colour of a label, via its legend swatch's class and the stylesheet.
std::string fill_of(const std::string& svg, const std::string& escaped_label) {
  const std::size_t text = svg.find(">" + escaped_label + " (");
  if (text == std::string::npos) return "no legend entry";
  const std::size_t sw = svg.rfind("<rect class=\"sw ", text);
  if (sw == std::string::npos) return "no swatch";
  const std::size_t cls = sw + std::string("<rect class=\"sw ").size();
  const std::string klass = svg.substr(cls, svg.find('"', cls) - cls);
  const std::size_t rule = svg.find("." + klass + "{fill:");
  if (rule == std::string::npos) return "no rule for " + klass;
  const std::size_t colour = rule + klass.size() + 7;
  return svg.substr(colour, svg.find('}', colour) - colour);
}

/// Three workers: w0 runs gemm [0,1] and gemm [1,3], w1 trsm [0,2], w2 nothing.
std::vector<Event> sample() {
  return {{"gemm", 0, 0.0, 1.0}, {"trsm", 1, 0.0, 2.0}, {"gemm", 0, 1.0, 3.0}};
}

TEST(TraceSummary, BusyShareKernelsAndImbalance) {
  const auto s = trace::summarize(sample(), 3);
  ASSERT_EQ(s.workers.size(), 3u);
  EXPECT_DOUBLE_EQ(s.span, 3.0);
  EXPECT_DOUBLE_EQ(s.window, 3.0);  // no window given: the span
  EXPECT_DOUBLE_EQ(s.busy, 5.0);
  EXPECT_EQ(s.workers[0].tasks, 2u);
  EXPECT_EQ(s.workers[1].tasks, 1u);
  EXPECT_EQ(s.workers[2].tasks, 0u);
  EXPECT_DOUBLE_EQ(s.workers[0].busy, 3.0);
  EXPECT_DOUBLE_EQ(s.workers[1].busy, 2.0);
  EXPECT_DOUBLE_EQ(s.workers[2].busy, 0.0);
  EXPECT_DOUBLE_EQ(s.workers[0].busy_fraction, 1.0);
  EXPECT_DOUBLE_EQ(s.workers[1].busy_fraction, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.workers[2].busy_fraction, 0.0);
  EXPECT_EQ(s.busy_per_worker, (std::vector<double>{3.0, 2.0, 0.0}));
  // max load / average load = 3 / (5 / 3)
  EXPECT_DOUBLE_EQ(s.imbalance, 1.8);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].label, "gemm");  // largest time first
  EXPECT_EQ(s.kernels[0].count, 2u);
  EXPECT_DOUBLE_EQ(s.kernels[0].seconds, 3.0);
  EXPECT_DOUBLE_EQ(s.kernels[0].share, 0.6);
  EXPECT_EQ(s.kernels[1].label, "trsm");
  EXPECT_EQ(s.kernels[1].count, 1u);
  EXPECT_DOUBLE_EQ(s.kernels[1].share, 0.4);
  EXPECT_FALSE(s.kernels[0].transfer);
}

TEST(TraceSummary, WindowIsTheBusyDenominator) {
  const auto s = trace::summarize(sample(), 3, 6.0);
  EXPECT_DOUBLE_EQ(s.window, 6.0);
  EXPECT_DOUBLE_EQ(s.span, 3.0);
  EXPECT_DOUBLE_EQ(s.workers[0].busy_fraction, 0.5);
  EXPECT_DOUBLE_EQ(s.workers[1].busy_fraction, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.imbalance, 1.8);  // independent of the window
}

TEST(TraceSummary, BalancedAndSingleWorkerExtremes) {
  const std::vector<Event> even = {{"a", 0, 0, 2}, {"b", 1, 0.5, 1.5}, {"b", 1, 1.5, 2.5}};
  EXPECT_DOUBLE_EQ(trace::summarize(even, 2).imbalance, 1.0);
  const std::vector<Event> one = {{"a", 2, 0, 1}, {"a", 2, 1, 2}};
  EXPECT_DOUBLE_EQ(trace::summarize(one, 4).imbalance, 4.0);  // everything on one of four workers
}

TEST(TraceSummary, EmptyTraceAndBadWorkers) {
  const auto s = trace::summarize({}, 2);
  EXPECT_EQ(s.span, 0.0);
  EXPECT_EQ(s.busy, 0.0);
  EXPECT_TRUE(s.kernels.empty());
  ASSERT_EQ(s.workers.size(), 2u);
  EXPECT_EQ(s.workers[1].tasks, 0u);
  EXPECT_TRUE(std::isnan(s.imbalance));
  EXPECT_THROW(trace::summarize({{"x", 2, 0, 1}}, 2), std::invalid_argument);
  EXPECT_THROW(trace::summarize({{"x", -1, 0, 1}}, 2), std::invalid_argument);
  EXPECT_THROW(trace::to_svg({{"x", 3, 0, 1}}, 2), std::invalid_argument);
  EXPECT_THROW(trace::to_svg({}, 0), std::invalid_argument);
}

TEST(TraceSummary, TransfersByKindOrLabel) {
  const std::vector<Event> ev = {
      {"gemm", 0, 0, 1}, {"copy_h2d", 1, 0, 0.5}, {"dma", 1, 0.5, 0.75, 1024, Kind::Transfer}};
  EXPECT_FALSE(trace::is_transfer(ev[0]));
  EXPECT_TRUE(trace::is_transfer(ev[1]));
  EXPECT_TRUE(trace::is_transfer(ev[2]));
  const auto s = trace::summarize(ev, 2);
  std::map<std::string, bool> transfer;
  for (const auto& k : s.kernels) transfer[k.label] = k.transfer;
  EXPECT_EQ(transfer, (std::map<std::string, bool>{{"copy_h2d", true}, {"dma", true}, {"gemm", false}}));
}

TEST(TraceRecorder, EventsSortedAndRestart) {
  trace::Recorder rec(2);
  EXPECT_EQ(rec.num_workers(), 2);
  rec.record(1, "b", 0.5, 0.7);
  rec.record(0, "a", 0.1, 0.2);
  rec.record(0, "c", 0.3, 0.9);
  rec.record(1, "copy", 0.2, 0.4, Kind::Transfer, 4096);
  auto ev = rec.events();
  ASSERT_EQ(ev.size(), 4u);
  for (std::size_t i = 1; i < ev.size(); ++i) EXPECT_LE(ev[i - 1].start, ev[i].start);
  EXPECT_STREQ(ev[1].label, "copy");
  EXPECT_EQ(ev[1].bytes, 4096u);
  EXPECT_EQ(ev[1].kind, Kind::Transfer);
  EXPECT_EQ(ev[0].kind, Kind::Task);
  EXPECT_EQ(ev[0].bytes, 0u);
  rec.clear();
  EXPECT_TRUE(rec.events().empty());
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(5)) {
  }
  EXPECT_GE(rec.now(), 0.005);
  rec.record(0, "a", 0, 1);
  rec.restart();
  EXPECT_TRUE(rec.events().empty());
  EXPECT_LT(rec.now(), 0.005);  // the origin moved
}

TEST(TraceRecorder, RuntimeRecordsEveryExecutedTask) {
  hetla::rt::RuntimeConfig cfg;
  cfg.num_workers = 2;
  cfg.pin_threads = false;
  hetla::rt::Runtime runtime(cfg);
  trace::Recorder rec(runtime.num_workers());
  runtime.set_trace(&rec);
  constexpr int kTasks = 200;
  std::vector<hetla::rt::Handle> handles(kTasks / 4);
  std::atomic<int> ran{0};
  for (int i = 0; i < kTasks; ++i) {
    hetla::rt::TaskOptions opt;
    opt.label = i % 2 ? "odd" : "even";
    opt.flops = i % 2 ? 1e6 : 0;  // summed per kernel by summarize()
    runtime.insert(
        [&](hetla::rt::TaskContext&) {
          const auto t0 = std::chrono::steady_clock::now();
          while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(20)) {
          }
          ++ran;
        },
        {hetla::rt::RW(&handles[static_cast<std::size_t>(i) % handles.size()])}, opt);
  }
  runtime.wait_all();
  runtime.set_trace(nullptr);
  runtime.insert([&](hetla::rt::TaskContext&) { ++ran; }, {hetla::rt::RW(&handles[0])});
  runtime.wait_all();
  EXPECT_EQ(ran.load(), kTasks + 1);
  const auto ev = rec.events();
  ASSERT_EQ(ev.size(), static_cast<std::size_t>(kTasks));  // the untraced task is not in it
  std::map<std::string, int> labels;
  for (const auto& e : ev) {
    EXPECT_GE(e.worker, 0);
    EXPECT_LT(e.worker, 2);
    EXPECT_GE(e.end - e.start, 15e-6) << e.label;
    ++labels[e.label];
  }
  EXPECT_EQ(labels, (std::map<std::string, int>{{"even", kTasks / 2}, {"odd", kTasks / 2}}));
  for (const auto& k : trace::summarize(ev, 2).kernels)
    EXPECT_EQ(k.flops, k.label == "odd" ? 1e6 * kTasks / 2 : 0) << k.label;
  const auto s = trace::summarize(ev, 2);
  EXPECT_NEAR(s.busy, s.workers[0].busy + s.workers[1].busy, 1e-12);
  EXPECT_GE(s.imbalance, 1.0);
  EXPECT_LE(s.imbalance, 2.0);
}

TEST(TraceChromeJson, OneCompleteEventPerTaskAndThreadNames) {
  std::vector<Event> ev = sample();
  ev.push_back({"copy \"q\"\\", 2, 1.234567891, 1.5, 8192, Kind::Transfer});
  const std::string text = trace::to_chrome_json(ev, 3, {"caller"});
  const nlohmann::json doc = nlohmann::json::parse(text);  // throws on invalid JSON
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("displayTimeUnit"), "ms");
  const auto& list = doc.at("traceEvents");
  ASSERT_TRUE(list.is_array());
  std::vector<const nlohmann::json*> complete;
  std::map<int, std::string> names;
  for (const auto& e : list) {
    const std::string ph = e.at("ph");
    if (ph == "X") complete.push_back(&e);
    if (ph == "M") {
      EXPECT_EQ(e.at("name"), "thread_name");
      names[e.at("tid").get<int>()] = e.at("args").at("name");
    }
  }
  EXPECT_EQ(names, (std::map<int, std::string>{{0, "caller"}, {1, "worker 1"}, {2, "worker 2"}}));
  ASSERT_EQ(complete.size(), ev.size());
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const auto& e = *complete[i];
    EXPECT_EQ(e.at("name"), ev[i].label);
    EXPECT_EQ(e.at("tid"), ev[i].worker);
    EXPECT_NEAR(e.at("ts").get<double>(), ev[i].start * 1e6, 1e-3);  // nanosecond resolution, no rounding to 6 digits
    EXPECT_NEAR(e.at("dur").get<double>(), (ev[i].end - ev[i].start) * 1e6, 1e-3);
  }
  EXPECT_EQ(complete.back()->at("cat"), "transfer");
  EXPECT_EQ(complete.back()->at("args").at("bytes"), 8192);
  EXPECT_EQ(complete.front()->at("cat"), "task");
  EXPECT_FALSE(complete.front()->contains("args"));
  // No workers given: no metadata, still valid.
  const nlohmann::json bare = nlohmann::json::parse(trace::to_chrome_json(sample()));
  EXPECT_EQ(bare.at("traceEvents").size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(trace::to_chrome_json({})).at("traceEvents").size(), 0u);
}

TEST(TraceSvg, WellFormedOneRectPerEventAndLegend) {
  std::vector<Event> ev = sample();
  ev.push_back({"copy_h2d", 2, 0.5, 0.75});
  ev.push_back({"a<b>&\"c\"", 2, 2.0, 2.5});
  trace::SvgOptions opt;
  opt.title = "dpotrf n=2000 & <nb> 256";
  opt.subtitle = "12.3 ms";
  opt.row_names = {"worker 0 (caller)", "worker 1"};
  const std::string svg = trace::to_svg(ev, 3, opt);
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<rect class=\"k"), ev.size());        // one bar per event
  EXPECT_EQ(count(svg, "<rect class=\"sw k"), 4u);            // one swatch per label
  for (const char* legend : {">gemm (2, ", ">trsm (1, ", ">copy_h2d (1, ", ">a&lt;b&gt;&amp;&quot;c&quot; (1, "})
    EXPECT_NE(svg.find(legend), std::string::npos) << legend;
  EXPECT_NE(svg.find("dpotrf n=2000 &amp; &lt;nb&gt; 256"), std::string::npos);
  EXPECT_NE(svg.find(">worker 0 (caller)<"), std::string::npos);
  EXPECT_NE(svg.find(">worker 2<"), std::string::npos);  // default name past row_names
  EXPECT_NE(svg.find(">time (ms)<"), std::string::npos);
  // Colours by label order among tasks ("a<b>..." < "gemm" < "trsm"); the transfer is red.
  EXPECT_EQ(fill_of(svg, "a&lt;b&gt;&amp;&quot;c&quot;"), "#4e79a7");
  EXPECT_EQ(fill_of(svg, "gemm"), "#f28e2b");
  EXPECT_EQ(fill_of(svg, "trsm"), "#59a14f");
  EXPECT_EQ(fill_of(svg, "copy_h2d"), "#e15759");
  // Legend: tasks by time (gemm 3 s, trsm 2 s, ...), then transfers.
  EXPECT_LT(svg.find(">gemm ("), svg.find(">trsm ("));
  const std::size_t odd = svg.find(">a&lt;b&gt;&amp;&quot;c&quot; (");
  EXPECT_LT(svg.find(">trsm ("), odd);
  EXPECT_LT(odd, svg.find(">copy_h2d ("));
  // Busy share per row over the drawn window [0, 3]: w0 100 %, w1 66.7 %.
  EXPECT_NE(svg.find(">100%<"), std::string::npos);
  EXPECT_NE(svg.find(">66.7%<"), std::string::npos);
  // Tooltips on small traces.
  EXPECT_EQ(count(svg, "<title>"), ev.size());
}

TEST(TraceSvg, EmptyTraceStillDrawsRowsAndAxis) {
  const std::string svg = trace::to_svg({}, 2);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<rect class=\"k"), 0u);
  EXPECT_NE(svg.find(">worker 1<"), std::string::npos);
  EXPECT_NE(svg.find(">time (ms)<"), std::string::npos);
}

TEST(TraceSvg, WindowClipsAndTicksAreMilliseconds) {
  trace::SvgOptions opt;
  opt.t0 = 0;
  opt.t1 = 0.010;  // 10 ms
  const std::string svg = trace::to_svg({{"gemm", 0, 0.002, 0.004}, {"gemm", 0, 0.009, 0.012}}, 1, opt);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<rect class=\"k"), 2u);
  for (const char* tick : {">0<", ">2<", ">4<", ">10<"}) EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  // The axis counts from the window's start.
  opt.t0 = 1.0;
  opt.t1 = 1.004;
  const std::string shifted = trace::to_svg({{"gemm", 0, 1.001, 1.002}}, 1, opt);
  for (const char* tick : {">0<", ">1<", ">2<", ">4<"}) EXPECT_NE(shifted.find(tick), std::string::npos) << tick;
  EXPECT_EQ(shifted.find(">1000<"), std::string::npos);
}

TEST(TraceSvg, TenThousandEventsStaySmall) {
  constexpr int kWorkers = 8, kEvents = 10000;
  const char* labels[] = {"gemm", "trsm", "herk", "potrf", "copy_d2h"};
  std::vector<Event> ev;
  for (int i = 0; i < kEvents; ++i) {
    const double t = 1e-5 * (i / kWorkers);
    ev.push_back({labels[i % 5], i % kWorkers, t, t + 0.8e-5});
  }
  const std::string svg = trace::to_svg(ev, kWorkers);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<rect class=\"k"), static_cast<std::size_t>(kEvents));
  EXPECT_EQ(count(svg, "<title>"), 0u);  // above max_tooltips
  EXPECT_LT(svg.size(), 60u * kEvents) << svg.size() << " bytes";
  trace::SvgOptions all;
  all.max_tooltips = kEvents;
  EXPECT_EQ(count(trace::to_svg(ev, kWorkers, all), "<title>"), static_cast<std::size_t>(kEvents));
}

}  // namespace
