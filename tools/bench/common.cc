#include "bench/common.hpp"

namespace hetla::cli {

Record make_record(const BenchConfig& c, const LinalgResult& r) {
  auto gflops = [&](double s) { return s > 0 ? r.flops / s / 1e9 : std::numeric_limits<double>::quiet_NaN(); };
  const bool has_uplo = c.spec && (c.spec->options & kOptUplo);
  Value residual, residual_ok;
  bool failed = r.info != 0;
  if (r.residual) {
    const bool ok = std::isfinite(*r.residual) && *r.residual < bench::kResidualThreshold && r.info == 0;
    residual = *r.residual;
    residual_ok = ok;
    failed = failed || !ok;
  }
  Value base_s, base_gf, base_info, ratio;
  if (r.baseline_seconds) {
    base_s = *r.baseline_seconds;
    base_gf = gflops(*r.baseline_seconds);
    ratio = r.seconds > 0 ? *r.baseline_seconds / r.seconds : std::numeric_limits<double>::quiet_NaN();
  }
  if (r.baseline_info) {
    base_info = *r.baseline_info;
    failed = failed || *r.baseline_info != 0;
  }
  Record rec;
  rec.add("routine", c.routine, "", 7)
      .add("precision", std::string(1, c.precision), "prec")
      .add("m", r.m, "", 6)
      .add("n", r.n, "", 6)
      .add("nrhs", r.nrhs)
      .add("nb", r.nb, "", 4)
      .add("uplo", has_uplo ? Value(std::string(1, static_cast<char>(c.uplo))) : Value())
      .add("threads", static_cast<int64_t>(c.threads), "thr")
      .add("repeat", static_cast<int64_t>(c.repeat), "-")
      .add("seconds", r.seconds, "", 9, 4)
      .add("gflops", gflops(r.seconds), "", 8, 2)
      .add("info", r.info)
      .add("residual", residual, "", 8)
      .add("residual_ok", residual_ok, "ok")
      .add("baseline_seconds", base_s, "base_s", 9, 4)
      .add("baseline_gflops", base_gf, "base_gf", 8, 2)
      .add("baseline_info", base_info, "-")
      .add("ratio", ratio, "", 6, 3);
  rec.failed = failed;
  return rec;
}

}  // namespace hetla::cli
