//===- ModelGenerator.cpp - Seeded random front-end models ----------------===//
#include "kb/Testing/ModelGenerator.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kb::differential {
namespace {

using Shape = std::vector<int64_t>;

class Random {
public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  uint64_t below(uint64_t n) { return engine_() % n; }
  int64_t in(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(hi - lo + 1));
  }
  bool percent(unsigned p) { return below(100) < p; }
  template <typename T> const T &pick(const std::vector<T> &from) {
    return from[below(from.size())];
  }

private:
  std::mt19937_64 engine_;
};

/// A dimension up to |max|: a quarter 1..4, a quarter a prime, the rest
/// anything up to |max|; so tiles and workgroups rarely divide it.
int64_t dim(Random &r, int64_t max) {
  static const std::vector<int64_t> kPrimes = {5, 7, 13, 17, 31, 37, 61};
  switch (r.below(4)) {
  case 0:
    return r.in(1, std::min<int64_t>(4, max));
  case 1:
    return std::min(r.pick(kPrimes), max);
  default:
    return r.in(1, max);
  }
}

Shape shapeOf(Random &r, size_t rank, int64_t max) {
  Shape s;
  for (size_t i = 0; i < rank; ++i)
    s.push_back(dim(r, max));
  return s;
}

std::string type(const Shape &shape) {
  std::string t = "tensor<";
  for (int64_t d : shape)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

/// One model function, written an op at a time.
class Function {
public:
  std::string arg(const Shape &shape) {
    std::string name = "%a" + std::to_string(args_.size());
    args_.push_back(name + ": " + type(shape));
    return name;
  }
  /// `%vN = <text>`; returns %vN.
  std::string op(const std::string &text) {
    std::string name = "%v" + std::to_string(values_++);
    body_ += "  " + name + " = " + text + "\n";
    return name;
  }
  std::string finish(const std::string &name, const std::string &result,
                     const Shape &shape) const {
    std::string signature;
    for (const std::string &a : args_)
      signature += (signature.empty() ? "" : ", ") + a;
    return "func.func @" + name + "(" + signature + ") -> " + type(shape) +
           " {\n" + body_ + "  return " + result + " : " + type(shape) +
           "\n}\n";
  }

private:
  std::vector<std::string> args_;
  std::string body_;
  int values_ = 0;
};

/// `"tosa.OP"(operands) {attrs} : (types) -> result`.
std::string tosa(const std::string &op,
                 const std::vector<std::pair<std::string, Shape>> &operands,
                 const Shape &result, const std::string &attrs = "") {
  std::string names, types;
  for (const auto &[name, shape] : operands) {
    names += (names.empty() ? "" : ", ") + name;
    types += (types.empty() ? "" : ", ") + type(shape);
  }
  return "\"tosa." + op + "\"(" + names + ")" +
         (attrs.empty() ? "" : " {" + attrs + "}") + " : (" + types + ") -> " +
         type(result);
}

std::string binaryAttrs(const std::string &op) {
  return op == "mul" ? "shift = 0 : i32" : "";
}

/// a OP b, b broadcast along some dimensions.
std::pair<std::string, Shape> elementwise(Random &r, Function &f) {
  Shape s = shapeOf(r, r.in(1, 3), 40), t = s;
  for (int64_t &d : t)
    if (r.percent(30))
      d = 1;
  std::string op =
      r.pick<std::string>({"add", "sub", "mul", "maximum", "minimum"});
  std::string a = f.arg(s), b = f.arg(t);
  return {f.op(tosa(op, {{a, s}, {b, t}}, s, binaryAttrs(op))), s};
}

/// One math op of the kind the codegens approximate, then an add.
std::pair<std::string, Shape> unary(Random &r, Function &f) {
  Shape s = shapeOf(r, r.in(1, 3), 40);
  std::string op =
      r.pick<std::string>({"exp", "tanh", "sigmoid", "abs", "negate", "clamp"});
  std::string attrs =
      op == "clamp" ? "min_fp = -1.0 : f32, max_fp = 1.5 : f32, min_int = -1 "
                      ": i64, max_int = 1 : i64"
                    : "";
  std::string a = f.arg(s), b = f.arg(s);
  std::string u = f.op(tosa(op, {{a, s}}, s, attrs));
  return {f.op(tosa("add", {{u, s}, {b, s}}, s)), s};
}

/// A batch of matrix products, with a bias half the time.
std::pair<std::string, Shape> matmul(Random &r, Function &f) {
  int64_t batch = r.in(1, 2), m = dim(r, 48), k = dim(r, 64), n = dim(r, 48);
  Shape as = {batch, m, k}, bs = {batch, k, n}, cs = {batch, m, n};
  std::string a = f.arg(as), b = f.arg(bs);
  std::string c = f.op(tosa("matmul", {{a, as}, {b, bs}}, cs));
  if (r.percent(50)) {
    Shape bias = {1, 1, n};
    c = f.op(tosa("add", {{c, cs}, {f.arg(bias), bias}}, cs));
  }
  return {c, cs};
}

std::pair<std::string, Shape> reduce(Random &r, Function &f) {
  Shape s = shapeOf(r, r.in(2, 3), 48);
  int64_t axis = r.below(s.size());
  // Over one element a reduction folds away and leaves no dispatch.
  s[axis] = std::max<int64_t>(s[axis], 2);
  Shape out = s;
  out[axis] = 1;
  std::string op =
      r.pick<std::string>({"reduce_sum", "reduce_max", "reduce_min"});
  return {f.op(tosa(op, {{f.arg(s), s}}, out,
                    "axis = " + std::to_string(axis) + " : i64")),
          out};
}

/// A transpose by a random permutation other than the identity, then an add
/// so the dispatch reads two layouts.
std::pair<std::string, Shape> transpose(Random &r, Function &f) {
  size_t rank = r.in(2, 3);
  Shape s = shapeOf(r, rank, 40);
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i)
    perm[i] = i;
  for (size_t i = rank - 1; i > 0; --i)
    std::swap(perm[i], perm[r.below(i + 1)]);
  if (std::is_sorted(perm.begin(), perm.end()))
    std::swap(perm[0], perm[1]);
  Shape out;
  std::string values;
  for (int64_t p : perm) {
    out.push_back(s[p]);
    values += (values.empty() ? "" : ", ") + std::to_string(p);
  }
  std::string a = f.arg(s), b = f.arg(out);
  std::string permType = "tensor<" + std::to_string(rank) + "xi32>";
  std::string perms = f.op("\"tosa.const\"() {value = dense<[" + values +
                           "]> : " + permType + "} : () -> " + permType);
  std::string t = f.op("\"tosa.transpose\"(" + a + ", " + perms + ") : (" +
                       type(s) + ", " + permType + ") -> " + type(out));
  return {f.op(tosa("add", {{t, out}, {b, out}}, out)), out};
}

/// softmax over the last axis, as a TOSA model spells it.
std::pair<std::string, Shape> softmax(Random &r, Function &f) {
  Shape s = {1, dim(r, 32), dim(r, 64)}, row = {s[0], s[1], 1};
  std::string x = f.arg(s);
  std::string max = f.op(tosa("reduce_max", {{x, s}}, row, "axis = 2 : i64"));
  std::string shifted = f.op(tosa("sub", {{x, s}, {max, row}}, s));
  std::string e = f.op(tosa("exp", {{shifted, s}}, s));
  std::string sum = f.op(tosa("reduce_sum", {{e, s}}, row, "axis = 2 : i64"));
  std::string inv = f.op(tosa("reciprocal", {{sum, row}}, row));
  return {f.op(tosa("mul", {{e, s}, {inv, row}}, s, "shift = 0 : i32")), s};
}

/// linalg.conv_2d_nhwc_hwcf or linalg.pooling_nhwc_max over a small image.
std::pair<std::string, Shape> window(Random &r, Function &f, bool conv) {
  int64_t k = r.in(1, 3), stride = r.in(1, 2), c = r.in(1, 4);
  if (!conv)
    k = std::max<int64_t>(k, 2);
  int64_t h = r.in(k, 12), w = r.in(k, 12), filters = conv ? r.in(1, 8) : c;
  Shape in = {1, h, w, c},
        kernel = conv ? Shape{k, k, c, filters} : Shape{k, k};
  Shape out = {1, (h - k) / stride + 1, (w - k) / stride + 1, filters};
  std::string x = f.arg(in);
  std::string init = f.op(std::string("arith.constant ") +
                          (conv ? "0.0" : "-3.4e38") + " : f32");
  std::string empty = f.op("tensor.empty() : " + type(out));
  std::string fill = f.op("linalg.fill ins(" + init + " : f32) outs(" + empty +
                          " : " + type(out) + ") -> " + type(out));
  std::string weights =
      conv ? f.arg(kernel) : f.op("tensor.empty() : " + type(kernel));
  std::string s = std::to_string(stride);
  return {f.op(std::string(conv ? "linalg.conv_2d_nhwc_hwcf"
                                : "linalg.pooling_nhwc_max") +
               " {dilations = dense<1> : tensor<2xi64>, strides = dense<" + s +
               "> : tensor<2xi64>} ins(" + x + ", " + weights + " : " +
               type(in) + ", " + type(kernel) + ") outs(" + fill + " : " +
               type(out) + ") -> " + type(out)),
          out};
}

} // namespace

GeneratedModel generateModel(uint64_t seed) {
  Random r(seed);
  static const char *const kClasses[] = {"elementwise", "unary",     "matmul",
                                         "reduce",      "transpose", "softmax",
                                         "convolution", "pooling"};
  size_t which = r.below(std::size(kClasses));
  Function f;
  std::pair<std::string, Shape> result;
  switch (which) {
  case 0:
    result = elementwise(r, f);
    break;
  case 1:
    result = unary(r, f);
    break;
  case 2:
    result = matmul(r, f);
    break;
  case 3:
    result = reduce(r, f);
    break;
  case 4:
    result = transpose(r, f);
    break;
  case 5:
    result = softmax(r, f);
    break;
  default:
    result = window(r, f, which == 6);
    break;
  }
  std::string name = "model_" + std::to_string(seed);
  return {kClasses[which], f.finish(name, result.first, result.second)};
}

} // namespace kb::differential
