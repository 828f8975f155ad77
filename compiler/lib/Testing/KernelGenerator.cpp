//===- kernel_generator.cpp - Seeded random kernel bodies -----------------===//
//
// A small Csmith for kernel bodies: a pool of typed SSA values per region,
// expressions drawn from it, statements that open regions (scf.for, scf.while,
// scf.if) and put their results back into it, and one store per output.
//
// Floats carry two static facts (see Value): a bound on their magnitude,
// kept small by clamps so nothing overflows, and a bound on how far two
// backends may disagree, so the harness knows its tolerance. Only values
// whose bound is 0 may steer control flow (kernel_generator.h explains why).
//
//===----------------------------------------------------------------------===//
#include "kb/Testing/KernelGenerator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <set>

namespace kb::differential {
namespace {

//===----------------------------------------------------------------------===//
// Random draws
//===----------------------------------------------------------------------===//

/// std::mt19937_64 is specified bit for bit; the standard distributions are
/// not, so every draw goes through these helpers.
class Random {
public:
  explicit Random(uint64_t seed) : engine(seed) {}
  uint64_t bits() { return engine(); }
  /// Uniform in [0, n) for n > 0; the modulo bias is below 2^-40 here.
  uint64_t below(uint64_t n) { return bits() % n; }
  /// Uniform in [lo, hi], both inclusive; lo <= hi.
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }
  bool percent(unsigned p) { return below(100) < p; }
  /// An index drawn with the given relative weights (at least one nonzero).
  size_t weighted(std::initializer_list<unsigned> weights) {
    uint64_t total = 0;
    for (unsigned w : weights)
      total += w;
    uint64_t x = below(total);
    size_t index = 0;
    for (unsigned w : weights) {
      if (x < w)
        return index;
      x -= w;
      ++index;
    }
    return index - 1;
  }
  template <typename T> const T &pick(const std::vector<T> &items) {
    return items[below(items.size())];
  }

private:
  std::mt19937_64 engine;
};

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

enum class Ty { I1, I8, I16, I32, I64, Index, F16, BF16, F32, F64 };

bool isFloat(Ty t) { return t >= Ty::F16; }
bool isInt(Ty t) { return t >= Ty::I8 && t <= Ty::I64; }

unsigned bitWidth(Ty t) {
  switch (t) {
  case Ty::I1:
    return 1;
  case Ty::I8:
    return 8;
  case Ty::I16:
  case Ty::F16:
  case Ty::BF16:
    return 16;
  case Ty::I32:
  case Ty::Index: // 32 bits on Vulkan: never rely on more
  case Ty::F32:
    return 32;
  case Ty::I64:
  case Ty::F64:
    return 64;
  }
  return 0;
}

const char *mlirName(Ty t) {
  static const char *const names[] = {"i1",    "i8",  "i16",  "i32", "i64",
                                      "index", "f16", "bf16", "f32", "f64"};
  return names[static_cast<int>(t)];
}

/// Significand bits: integers up to 2^this convert to the type exactly.
unsigned precision(Ty t) {
  switch (t) {
  case Ty::F16:
    return 11;
  case Ty::BF16:
    return 8;
  case Ty::F32:
    return 24;
  default:
    return 53;
  }
}

double unitRoundoff(Ty t) {
  return std::ldexp(1.0, -static_cast<int>(precision(t)));
}

/// What one rounding may differ by near zero on top of the relative part:
/// a backend may flush subnormals (f16's smallest normal is 2^-14).
double tinyAbsolute(Ty t) {
  switch (t) {
  case Ty::F16:
    return std::ldexp(1.0, -14);
  case Ty::F64:
    return std::ldexp(1.0, -1000);
  default:
    return std::ldexp(1.0, -120);
  }
}

/// Magnitudes above this are clamped (a power of two, exact in the type):
/// far from overflow, and small enough that the tolerance stays useful.
double magnitudeLimit(Ty t) {
  return (t == Ty::F16 || t == Ty::BF16) ? 16.0 : 1024.0;
}

/// The clamp bound of a loop-carried float (a power of two).
double carriedLimit(Ty t) {
  return (t == Ty::F16 || t == Ty::BF16) ? 8.0 : 256.0;
}

/// How far one float op whose result is below |mag| may differ between
/// backends, in ulps of |mag| (an ulp is at most 2u|x|): one covers a
/// backend fusing a product into an fma (it skips the product's rounding,
/// which the product's own charge covers) or reassociating with a constant
/// (both allowed by Vulkan without NoContraction), or rounding a conversion
/// toward zero where another rounds to nearest.
double roundingCharge(Ty t, double mag, double ulps = 1) {
  return 2 * ulps * unitRoundoff(t) * mag + tinyAbsolute(t);
}

/// An ABI element type and the signless MLIR type it loads as.
struct ElementInfo {
  const char *abi;
  Ty type;
};

const std::vector<ElementInfo> &elementTypes() {
  static const std::vector<ElementInfo> types = {
      {"i8", Ty::I8},   {"u8", Ty::I8},     {"i16", Ty::I16}, {"u16", Ty::I16},
      {"i32", Ty::I32}, {"u32", Ty::I32},   {"i64", Ty::I64}, {"u64", Ty::I64},
      {"f16", Ty::F16}, {"bf16", Ty::BF16}, {"f32", Ty::F32}, {"f64", Ty::F64}};
  return types;
}

//===----------------------------------------------------------------------===//
// Error bounds
//===----------------------------------------------------------------------===//

/// A bound on how far a float value may differ between two backends:
/// base + sum(coefficient * bound of a loop-carried value). The carried
/// bounds are unknown while their loop's body is generated;
/// defineLoopResults iterates the body's effect to eliminate them.
struct ErrorForm {
  double base = 0;
  std::map<int, double> terms; // symbol -> coefficient (> 0)
  bool isZero() const { return base == 0 && terms.empty(); }
  double coefficient(int symbol) const {
    auto it = terms.find(symbol);
    return it == terms.end() ? 0 : it->second;
  }
};

ErrorForm plus(const ErrorForm &a, const ErrorForm &b) {
  ErrorForm r = a;
  r.base += b.base;
  for (auto [symbol, c] : b.terms)
    r.terms[symbol] += c;
  return r;
}

ErrorForm scaled(const ErrorForm &a, double k) {
  ErrorForm r;
  if (k == 0)
    return r;
  r.base = a.base * k;
  for (auto [symbol, c] : a.terms)
    r.terms[symbol] = c * k;
  return r;
}

/// Coefficient-wise maximum: bounds max(a, b) since every symbol is >= 0.
ErrorForm upper(const ErrorForm &a, const ErrorForm &b) {
  ErrorForm r = a;
  r.base = std::max(a.base, b.base);
  for (auto [symbol, c] : b.terms)
    r.terms[symbol] = std::max(r.terms[symbol], c);
  return r;
}

ErrorForm charged(ErrorForm a, double charge) {
  a.base += charge;
  return a;
}

/// |f| with the symbols in |values| replaced by their forms.
ErrorForm substitute(const ErrorForm &f,
                     const std::map<int, ErrorForm> &values) {
  ErrorForm r;
  r.base = f.base;
  for (auto [symbol, c] : f.terms) {
    auto it = values.find(symbol);
    if (it == values.end())
      r.terms[symbol] += c;
    else
      r = plus(r, scaled(it->second, c));
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Values and plans
//===----------------------------------------------------------------------===//

struct Value {
  std::string name; // "%v3" or "%v3#1"
  Ty type = Ty::I32;
  /// Floats: a bound on |value| on every backend.
  double mag = 0;
  /// Floats: a bound on the difference between backends (0: bit-identical
  /// up to the sign of zero, so it may decide control flow).
  ErrorForm err;
  /// Index: 0 <= value < limit, for bounds-safe loads.
  uint64_t limit = 0;
  /// Computed from literals only, so the compiler folds it to a constant.
  bool folds = false;
  bool isExact() const { return !isFloat(type) || err.isZero(); }
};

/// The values one region may use, and the results of its statements not yet
/// consumed (folded into the region's yields or stores so they matter).
struct Scope {
  std::vector<Value> values;
  std::vector<Value> pending;
};

/// A binding as generated: its export name, the SSA name of its kb.binding
/// and, for a float output, the largest error bound stored into it.
struct BindingPlan {
  std::string name;
  ElementInfo element;
  uint64_t elements = 0;
  bool output = false;
  std::string ssa;
  double tolerance = 0;
};

/// What a kb.constant is for: the element count (1-D), the grid's width and
/// height (2-D), the `len` of strided loops, or an operand of arithmetic.
enum class ConstantRole { Count, Width, Height, Length, Parameter };

struct ConstantPlan {
  std::string name;
  const char *abi;
  Ty type; // I32, I64, F32 or F64
  uint64_t bits;
  ConstantRole role;
  double value; // floats: what |bits| hold
};

/// How invocations map to elements: x guarded by `i < n`, x and y guarded
/// by width and height, or a grid-stride loop over all elements.
enum class Layout { Guard1D, Guard2D, GridStride };

struct Trips {
  uint64_t min = 0, max = 0;
};

/// An scf.for's bounds, what it may run, and a bound on its induction
/// variable (for loads indexed by it).
struct LoopHeader {
  Value lb, ub, step;
  Trips trips;
  uint64_t ivLimit = 1;
};

/// An scf.while's counter: up from init while below limit, or down from
/// init while positive, by step; the trip bound that makes the loop finite.
struct Counter {
  Value init;
  bool down = false;
  bool dataExit = false; // and-ed with a test of data: may stop at once
  uint64_t limit = 0, step = 1;
  Trips trips;
};

/// MLIR 16's SPIR-V serializer writes a negative i8/i16 OpConstant with its
/// sign extended into the high bits of the literal word, which spirv-val
/// rejects; the SPIR-V codegen now writes such a constant as an i32 one and
/// an OpUConvert. The generator keeps narrow constants in its bodies to test
/// that; set this to keep them out (narrow values that would fold to a
/// constant are then made opaque with an added zero the compiler cannot see
/// through, see unfold; the values computed are the same).
constexpr bool kAvoidNarrowConstants = false;

bool isNarrow(Ty t) { return t == Ty::I8 || t == Ty::I16; }

/// The product of enclosing loops' trip bounds stays below this, so one
/// invocation does at most a few hundred iterations.
constexpr uint64_t kMaxWork = 256;
constexpr int kMaxLoopDepth = 3;

std::string formatFloat(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.12e", v);
  return buffer;
}

/// |bits| as a signed decimal of |width| bits (what MLIR's parser expects).
std::string formatInt(uint64_t bits, unsigned width) {
  if (width < 64) {
    uint64_t mask = (uint64_t(1) << width) - 1;
    bits &= mask;
    if (bits >> (width - 1))
      bits |= ~mask;
  }
  return std::to_string(static_cast<int64_t>(bits));
}

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/// The exponent of the smallest power of two >= max(x, 1). A loop rather
/// than std::log2, whose exactness the C library does not promise: choices
/// made from it must be the same everywhere.
int exponentAtLeast(double x) {
  int e = 0;
  while (std::ldexp(1.0, e) < x)
    ++e;
  return e;
}

double powerOfTwoAtLeast(double x) {
  return std::ldexp(1.0, exponentAtLeast(x));
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

class Generator {
public:
  explicit Generator(uint64_t seed) : seed(seed), rng(seed) {}
  GeneratedKernel run();

private:
  // Configuration: the dispatch, the ABI.
  void chooseShape();
  void chooseBindings();
  void chooseConstants();
  void addConstant(std::string name, ConstantRole role,
                   std::vector<const char *> abiTypes, uint64_t value);
  std::string exportText() const;
  GeneratedKernel result();

  // Text and values.
  std::string fresh() { return "%v" + std::to_string(nextId++); }
  void emit(const std::string &line);
  Value makeValue(Ty t, std::string name = "");
  Value define(const Value &v);
  void defineResult(const Value &v);
  std::optional<Value> pickPool(const std::function<bool(const Value &)> &p);
  Value named(const std::string &name) const;
  Ty randomArithType();

  // Constants and ops.
  Value constInt(Ty t, uint64_t bits);
  Value constIndex(uint64_t v);
  Value constFloat(Ty t, double v);
  Value constBool(bool b);
  Value genConstant(Ty t);
  Value emitBinary(const std::string &op, const Value &a, const Value &b,
                   Ty resultType);
  Value emitCast(const char *op, const Value &a, Ty to);
  Value emitSelect(const Value &c, const Value &a, const Value &b);
  Value emitCompare(const char *op, const std::string &pred, const Value &a,
                    const Value &b);
  void emitOpaqueZeros(const Value &countValue);
  Value unfold(const Value &v);

  // Float ops with their bounds.
  Value fAdd(const Value &a, const Value &b, bool subtract);
  Value fMul(Value a, Value b);
  Value fMinMax(const Value &a, const Value &b, bool isMin);
  Value fUnary(const Value &a, bool abs);
  Value fClampRange(const Value &x, double lo, double hi);
  Value fClamp(const Value &x, double bound) {
    return fClampRange(x, -bound, bound);
  }
  Value fScale(const Value &x, int exponent, bool exact);
  Value fDiv(const Value &a, const Value &b);
  Value fSqrt(const Value &a);
  Value limitMagnitude(const Value &v);

  // Integer ops and conversions.
  Value intBinary(size_t op, Value a, Value b);
  Value resizeInt(const Value &v, Ty to);
  Value intToFloat(const Value &v, Ty to);
  std::optional<Value> floatToInt(const Value &v, Ty to);
  Value floatToFloat(const Value &v, Ty to);
  std::optional<Value> convertTo(const Value &v, Ty to);
  std::optional<Value> convertExactly(const Value &v, Ty to);
  Value indexFromInt(const Value &v, uint64_t mask);
  Value clampIndex(const Value &v, uint64_t length);

  // Expressions.
  Value genExpr(Ty t, int depth);
  Value genLeaf(Ty t);
  Value genLoad(Ty t);
  Value loadFrom(const BindingPlan &binding);
  Value genIndex(uint64_t length);
  Value genIntOp(Ty t, int depth);
  Value genFloatOp(Ty t, int depth);
  Value genCond(int depth);
  Value genIntCompare(int depth);
  Value genFloatCompare(int depth);
  Value genExactFloat(Ty t, int depth);
  Value combine(const Value &target, const Value &extra);
  void absorbPending(std::vector<Value> &targets);

  // Statements.
  void genStatements(int count, int depth);
  void genStatement(int depth);
  void genLet();
  LoopHeader genLoopHeader(uint64_t maxTrips);
  LoopHeader staticLoop(uint64_t trips);
  LoopHeader dataBoundLoop(uint64_t maxTrips);
  LoopHeader invocationBoundLoop(uint64_t maxTrips);
  LoopHeader stridedLoop();
  void noteTrips(Trips trips);
  std::vector<Ty> carriedTypes(uint64_t maxTrips);
  Value carriedValue(const Value &init, const std::string &name, int symbol);
  Value genCarriedUpdate(const Value &acc);
  Value fitCarried(Value y, const std::vector<int> &symbols, double bound);
  std::vector<Value> finishYields(const std::vector<Value> &carried,
                                  std::vector<Value> yields,
                                  const std::vector<int> &symbols);
  void defineLoopResults(const std::string &name,
                         const std::vector<Value> &inits,
                         const std::vector<Value> &carried,
                         const std::vector<Value> &yields, uint64_t maxTrips);
  void emitYield(const char *op, const std::vector<Value> &values);
  void enterLoop(uint64_t maxTrips);
  void leaveLoop(uint64_t maxTrips);
  void genFor(int depth);
  void genWhile(int depth);
  Counter genCounter(uint64_t budget);
  std::vector<Value> whileBefore(const std::string &header,
                                 const std::vector<Value> &inits,
                                 const std::vector<int> &symbols,
                                 const Counter &counter);
  void genIf(int depth);
  std::vector<Value> genBranch(const std::vector<Ty> &types, int depth);

  // The body.
  void emitFunction();
  void emitInvocationIndex();
  Value emitLinearId(const char *dim, bool viaGpu);
  void emitBody();
  void genOutputStore(BindingPlan &out);
  Value genOutputValue(const BindingPlan &out);
  void store(BindingPlan &out, const Value &v);

  uint64_t seed;
  Random rng;
  std::string body;
  int indent = 2;
  unsigned nextId = 0;
  int nextSymbol = 0;
  std::vector<Scope> scopes;

  Layout layout = Layout::Guard1D;
  std::array<uint32_t, 3> wgSize = {1, 1, 1}, wgCount = {1, 1, 1};
  uint64_t count = 1, width = 1, height = 1;
  std::optional<uint64_t> stridedLength;
  std::vector<BindingPlan> bindings;
  std::vector<ConstantPlan> constants;
  bool allowBf16 = false, allowInexactMath = false, usedBf16 = false;

  Value invocation; // the element this invocation writes, < count
  Value countIndex; // count as an index
  std::optional<Value> lengthIndex;
  uint64_t tripProduct = 1;
  int loopDepth = 0;
  GeneratedKernel::Features features;
  std::set<std::string> arithTypes;
  std::map<Ty, Value> opaqueZeros; // integer zeros no folder can see through
};

//--- Text and values ----------------------------------------------------===//

void Generator::emit(const std::string &line) {
  body.append(static_cast<size_t>(indent) * 2, ' ');
  body += line;
  body += '\n';
}

Value Generator::makeValue(Ty t, std::string name) {
  Value v;
  v.name = name.empty() ? fresh() : std::move(name);
  v.type = t;
  if (t == Ty::BF16)
    usedBf16 = true;
  if (t != Ty::I1)
    arithTypes.insert(mlirName(t));
  return v;
}

Value Generator::define(const Value &v) {
  scopes.back().values.push_back(v);
  return v;
}

/// A statement's result: usable later, and folded into the region's output
/// if nothing else uses it.
void Generator::defineResult(const Value &v) {
  define(v);
  scopes.back().pending.push_back(v);
}

std::optional<Value>
Generator::pickPool(const std::function<bool(const Value &)> &p) {
  std::vector<const Value *> matches;
  for (const Scope &scope : scopes)
    for (const Value &v : scope.values)
      if (p(v))
        matches.push_back(&v);
  if (matches.empty())
    return std::nullopt;
  return *matches[rng.below(matches.size())];
}

/// A value the prologue defined under a fixed name ("%width").
Value Generator::named(const std::string &name) const {
  for (const Scope &scope : scopes)
    for (const Value &v : scope.values)
      if (v.name == name)
        return v;
  std::fprintf(stderr, "kernel_generator: no value %s\n", name.c_str());
  std::abort();
}

Ty Generator::randomArithType() {
  static const Ty types[] = {Ty::I8,  Ty::I16,  Ty::I32, Ty::I64,
                             Ty::F16, Ty::BF16, Ty::F32, Ty::F64};
  size_t i = rng.weighted({2, 2, 4, 2, 2, allowBf16 ? 2u : 0u, 4, 2});
  return types[i];
}

//--- Constants and ops --------------------------------------------------===//

Value Generator::constInt(Ty t, uint64_t bits) {
  if (kAvoidNarrowConstants && isNarrow(t) && !opaqueZeros.empty() &&
      std::stoll(formatInt(bits, bitWidth(t))) < 0)
    return emitCast("trunci",
                    constInt(Ty::I32, std::stoll(formatInt(bits, bitWidth(t)))),
                    t);
  Value v = makeValue(t);
  v.folds = true;
  emit(v.name + " = arith.constant " + formatInt(bits, bitWidth(t)) + " : " +
       mlirName(t));
  return v;
}

/// Half the index constants go through an i32 constant and index_cast(ui),
/// the way front ends often spell them.
Value Generator::constIndex(uint64_t value) {
  Value v = makeValue(Ty::Index);
  v.limit = value + 1;
  v.folds = true;
  if (rng.percent(50)) {
    emit(v.name + " = arith.constant " + std::to_string(value) + " : index");
    return v;
  }
  Value c = constInt(Ty::I32, value);
  emit(v.name + " = arith." +
       (rng.percent(50) ? "index_cast " : "index_castui ") + c.name +
       " : i32 to index");
  return v;
}

Value Generator::constFloat(Ty t, double value) {
  Value v = makeValue(t);
  v.mag = std::fabs(value);
  v.folds = true;
  emit(v.name + " = arith.constant " + formatFloat(value) + " : " +
       mlirName(t));
  return v;
}

Value Generator::constBool(bool b) {
  Value v = makeValue(Ty::I1);
  v.folds = true;
  emit(v.name + " = arith.constant " + (b ? "true" : "false"));
  return v;
}

/// Small values, edge values (wrapping, INT_MIN) and random bits; floats are
/// multiples of 1/8 below 4, exact in every float type.
Value Generator::genConstant(Ty t) {
  if (t == Ty::I1)
    return constBool(rng.percent(50));
  if (t == Ty::Index)
    return constIndex(rng.range(0, 8));
  if (isFloat(t))
    return constFloat(t, rng.range(-32, 32) / 8.0);
  unsigned w = bitWidth(t);
  uint64_t top = uint64_t(1) << (w - 1);
  switch (rng.weighted({4, 2, 3})) {
  case 0:
    return constInt(t, static_cast<uint64_t>(rng.range(-4, 9)));
  case 1: {
    static const uint64_t edges[] = {0, ~uint64_t(0), 1};
    size_t i = rng.below(5);
    return constInt(t, i < 3 ? edges[i] : (i == 3 ? top : top - 1));
  }
  default:
    return constInt(t, rng.bits());
  }
}

Value Generator::emitBinary(const std::string &op, const Value &a,
                            const Value &b, Ty resultType) {
  bool opaque = kAvoidNarrowConstants && isNarrow(resultType) && a.folds &&
                b.folds && !opaqueZeros.empty();
  Value left = opaque ? unfold(a) : a;
  Value v = makeValue(resultType);
  v.folds = left.folds && b.folds;
  emit(v.name + " = " + op + " " + left.name + ", " + b.name + " : " +
       mlirName(a.type));
  return v;
}

/// Casts that may make a negative narrow constant get an opaque operand;
/// extensions of folding narrow values (never negative) need none.
Value Generator::emitCast(const char *op, const Value &a, Ty to) {
  bool narrowing =
      std::strcmp(op, "trunci") == 0 || std::strncmp(op, "fpto", 4) == 0;
  if (kAvoidNarrowConstants && isNarrow(to) && narrowing && a.folds &&
      !opaqueZeros.empty()) {
    Value wide = isFloat(a.type) ? emitCast(op, a, Ty::I32) : a;
    return emitCast("trunci", unfold(wide), to);
  }
  Value v = makeValue(to);
  v.folds = a.folds;
  emit(v.name + " = arith." + op + " " + a.name + " : " + mlirName(a.type) +
       " to " + mlirName(to));
  return v;
}

/// Zeros of every integer type from the element count (below 2^31), which
/// no folder can prove zero: right after the constants, so they dominate.
void Generator::emitOpaqueZeros(const Value &countValue) {
  // Not arithmetic the body chose: keep them out of the coverage report.
  std::set<std::string> typesBefore = arithTypes;
  unsigned shift = bitWidth(countValue.type) - 1;
  Value zero = emitBinary("arith.shrui", countValue,
                          constInt(countValue.type, shift), countValue.type);
  if (zero.type != Ty::I32)
    zero = emitCast("trunci", zero, Ty::I32);
  opaqueZeros[Ty::I32] = zero;
  opaqueZeros[Ty::I8] = emitCast("trunci", zero, Ty::I8);
  opaqueZeros[Ty::I16] = emitCast("trunci", zero, Ty::I16);
  opaqueZeros[Ty::I64] = emitCast("extui", zero, Ty::I64);
  arithTypes = typesBefore;
}

/// |v| + an opaque zero: the same value, no longer a constant to the
/// compiler.
Value Generator::unfold(const Value &v) {
  Value r = emitBinary("arith.addi", v, opaqueZeros.at(v.type), v.type);
  r.limit = v.limit;
  return r;
}

/// Float bounds: the larger of both sides (the condition is exact, so every
/// backend picks the same side).
Value Generator::emitSelect(const Value &c, const Value &a, const Value &b) {
  Value v = makeValue(a.type);
  v.folds = c.folds && a.folds && b.folds;
  emit(v.name + " = arith.select " + c.name + ", " + a.name + ", " + b.name +
       " : " + mlirName(a.type));
  v.mag = std::max(a.mag, b.mag);
  v.err = upper(a.err, b.err);
  v.limit = std::max(a.limit, b.limit);
  return v;
}

Value Generator::emitCompare(const char *op, const std::string &pred,
                             const Value &a, const Value &b) {
  return emitBinary(std::string("arith.") + op + " " + pred + ",", a, b,
                    Ty::I1);
}

//--- Float ops with their bounds ----------------------------------------===//

Value Generator::fAdd(const Value &a, const Value &b, bool subtract) {
  Value v = emitBinary(subtract ? "arith.subf" : "arith.addf", a, b, a.type);
  v.mag = a.mag + b.mag;
  v.err = charged(plus(a.err, b.err), roundingCharge(a.type, v.mag));
  return v;
}

/// Operands are clamped first so the product stays below the type's limit,
/// and so a factor that backends may see differently is multiplied by at
/// most 2: |a1 b1 - a2 b2| <= |a1 - a2| |b| + |a| |b1 - b2|.
Value Generator::fMul(Value a, Value b) {
  if (!a.isExact() && b.mag > 2)
    b = fClamp(b, 2);
  if (!b.isExact() && a.mag > 2)
    a = fClamp(a, 2);
  double limit = magnitudeLimit(a.type);
  if (a.mag * b.mag > limit) {
    double side = std::ldexp(1.0, exponentAtLeast(limit) / 2);
    if (a.mag > side)
      a = fClamp(a, side);
    if (b.mag > side)
      b = fClamp(b, side);
  }
  Value v = emitBinary("arith.mulf", a, b, a.type);
  v.mag = a.mag * b.mag;
  v.err = charged(plus(scaled(a.err, b.mag), scaled(b.err, a.mag)),
                  roundingCharge(a.type, v.mag));
  return v;
}

/// Exact: min/max round nothing, and move errors by at most the larger one.
Value Generator::fMinMax(const Value &a, const Value &b, bool isMin) {
  Value v = emitBinary(isMin ? "arith.minf" : "arith.maxf", a, b, a.type);
  v.mag = std::max(a.mag, b.mag);
  v.err = upper(a.err, b.err);
  return v;
}

Value Generator::fUnary(const Value &a, bool abs) {
  Value v = makeValue(a.type);
  emit(v.name + " = " + (abs ? "math.absf " : "arith.negf ") + a.name + " : " +
       mlirName(a.type));
  v.mag = a.mag;
  v.err = a.err;
  return v;
}

/// |lo| and |hi| must be exact in the type (small multiples of powers of 2).
Value Generator::fClampRange(const Value &x, double lo, double hi) {
  Value low = constFloat(x.type, lo), high = constFloat(x.type, hi);
  Value v = fMinMax(fMinMax(x, low, false), high, true);
  v.mag = std::min(x.mag, std::max(std::fabs(lo), std::fabs(hi)));
  v.err = x.err;
  return v;
}

/// x * 2^exponent. Exact (no charge) when the caller knows nothing can
/// underflow: scaling up, or scaling an integer-valued float.
Value Generator::fScale(const Value &x, int exponent, bool exact) {
  Value factor = constFloat(x.type, std::ldexp(1.0, exponent));
  Value v = emitBinary("arith.mulf", x, factor, x.type);
  v.mag = std::ldexp(x.mag, exponent);
  v.err = scaled(x.err, std::ldexp(1.0, exponent));
  if (!exact)
    v.err.base += tinyAbsolute(x.type);
  return v;
}

/// a / (|b| + 1): the divisor is at least 1. Vulkan allows 2.5 ulp.
Value Generator::fDiv(const Value &a, const Value &b) {
  features.inexactMath = true;
  Value magnitude = fUnary(b, true);
  Value d = fAdd(magnitude, constFloat(b.type, 1.0), false);
  Value v = emitBinary("arith.divf", a, d, a.type);
  v.mag = a.mag;
  v.err = charged(plus(a.err, scaled(d.err, a.mag)),
                  roundingCharge(a.type, v.mag, 3));
  return v;
}

/// sqrt(|a| + 1): Lipschitz 1/2 there. Vulkan's sqrt is 1/inversesqrt.
Value Generator::fSqrt(const Value &a) {
  features.inexactMath = true;
  Value magnitude = fUnary(a, true);
  Value s = fAdd(magnitude, constFloat(a.type, 1.0), false);
  Value v = makeValue(a.type);
  emit(v.name + " = math.sqrt " + s.name + " : " + mlirName(a.type));
  v.mag = std::sqrt(s.mag);
  v.err = charged(scaled(s.err, 0.5), roundingCharge(a.type, v.mag, 6));
  return v;
}

Value Generator::limitMagnitude(const Value &v) {
  if (!isFloat(v.type) || v.mag <= magnitudeLimit(v.type))
    return v;
  return fClamp(v, magnitudeLimit(v.type));
}

//--- Integer ops and conversions ----------------------------------------===//

const char *const kIntOps[] = {"addi",  "subi",  "muli",  "andi",  "ori",
                               "xori",  "shli",  "shrsi", "shrui", "divsi",
                               "divui", "remsi", "remui", "minsi", "maxsi",
                               "minui", "maxui"};
constexpr size_t kNumIntOps = sizeof(kIntOps) / sizeof(kIntOps[0]);

/// Operands are made safe for every backend: shift amounts below the width,
/// unsigned divisors odd (never 0), signed divisors positive and odd (never
/// 0 or -1).
Value Generator::intBinary(size_t op, Value a, Value b) {
  std::string name = kIntOps[op];
  unsigned w = bitWidth(a.type);
  if (name[0] == 's' && name[1] == 'h')
    b = emitBinary("arith.andi", b, constInt(a.type, w - 1), a.type);
  bool division = name.find("div") != std::string::npos ||
                  name.find("rem") != std::string::npos;
  if (division && name[3] == 's')
    b = emitBinary("arith.andi", b,
                   constInt(a.type, (~uint64_t(0)) >> (65 - w)), a.type);
  if (division)
    b = emitBinary("arith.ori", b, constInt(a.type, 1), a.type);
  return emitBinary("arith." + name, a, b, a.type);
}

Value Generator::resizeInt(const Value &v, Ty to) {
  if (bitWidth(to) < bitWidth(v.type))
    return emitCast("trunci", v, to);
  return emitCast(rng.percent(50) ? "extsi" : "extui", v, to);
}

/// Keeps the low k bits (sign-extended or not) so the float is exact and
/// small, then sometimes scales by a power of two for fractions.
Value Generator::intToFloat(const Value &v, Ty to) {
  unsigned w = bitWidth(v.type);
  unsigned k = std::min<unsigned>(w, rng.percent(50) ? 8 : 4);
  if (to != Ty::F16 && to != Ty::BF16 && rng.percent(10))
    k = std::min<unsigned>(w, 12);
  bool isSigned = rng.percent(50);
  Value x = v;
  if (k < w && isSigned) {
    Value shift = constInt(v.type, w - k);
    x = emitBinary("arith.shrsi", emitBinary("arith.shli", v, shift, v.type),
                   shift, v.type);
  } else if (k < w) {
    x = emitBinary("arith.andi", v, constInt(v.type, (uint64_t(1) << k) - 1),
                   v.type);
  }
  Value f = emitCast(isSigned ? "sitofp" : "uitofp", x, to);
  f.mag = std::ldexp(1.0, static_cast<int>(k));
  // Scaling an integer-valued float down by a power of two is exact.
  int down = rng.percent(30) ? static_cast<int>(rng.range(1, 4)) : 0;
  while (std::ldexp(f.mag, -down) > magnitudeLimit(to))
    ++down;
  return down ? fScale(f, -down, true) : f;
}

/// Only exact floats (a value near an integer boundary would otherwise
/// truncate differently), clamped into a range every int type holds.
std::optional<Value> Generator::floatToInt(const Value &v, Ty to) {
  if (!v.isExact())
    return std::nullopt;
  Value x = v;
  if (x.mag <= 64 && rng.percent(50))
    x = fScale(x, 4, true);
  bool isSigned = rng.percent(50);
  double hi = to == Ty::I8 ? (isSigned ? 100 : 200) : (isSigned ? 1000 : 2000);
  x = fClampRange(x, isSigned ? -hi : 0, hi);
  return emitCast(isSigned ? "fptosi" : "fptoui", x, to);
}

Value Generator::floatToFloat(const Value &v, Ty to) {
  if (bitWidth(v.type) == bitWidth(to)) // f16 <-> bf16: through f32
    return floatToFloat(floatToFloat(v, Ty::F32), to);
  if (bitWidth(to) > bitWidth(v.type)) {
    Value r = emitCast("extf", v, to);
    r.mag = v.mag;
    r.err = v.err;
    return r;
  }
  Value x = v.mag > magnitudeLimit(to) ? fClamp(v, magnitudeLimit(to)) : v;
  Value r = emitCast("truncf", x, to);
  r.mag = x.mag;
  r.err = charged(x.err, roundingCharge(to, x.mag));
  return r;
}

/// |v| as |to|, or nothing when that would make control flow or an integer
/// depend on a float backends may round differently.
std::optional<Value> Generator::convertTo(const Value &v, Ty to) {
  if (v.type == to)
    return v;
  if (v.type == Ty::Index)
    return convertTo(
        emitCast(rng.percent(50) ? "index_cast" : "index_castui", v, Ty::I32),
        to);
  if (to == Ty::Index)
    return std::nullopt; // indices come from genIndex, with their limits
  if (v.type == Ty::I1)
    return convertTo(emitCast("extui", v, Ty::I8), to);
  if (to == Ty::I1) {
    if (isFloat(v.type) && !v.isExact())
      return std::nullopt;
    Value zero =
        isFloat(v.type) ? constFloat(v.type, 0.0) : constInt(v.type, 0);
    return isFloat(v.type) ? emitCompare("cmpf", "one", v, zero)
                           : emitCompare("cmpi", "ne", v, zero);
  }
  if (isInt(v.type) && isInt(to))
    return resizeInt(v, to);
  if (isInt(v.type))
    return intToFloat(v, to);
  if (isInt(to))
    return floatToInt(v, to);
  return floatToFloat(v, to);
}

/// Like convertTo, but only conversions that keep a float exact.
std::optional<Value> Generator::convertExactly(const Value &v, Ty to) {
  if (v.type == to)
    return v;
  if (isInt(v.type))
    return intToFloat(v, to);
  if (isFloat(v.type) && v.isExact() && bitWidth(v.type) < bitWidth(to))
    return floatToFloat(v, to);
  return std::nullopt;
}

/// An index below mask + 1 from any integer: masked in 32 bits first, as
/// index is 32-bit on Vulkan and 64-bit elsewhere.
Value Generator::indexFromInt(const Value &v, uint64_t mask) {
  Value x = v;
  if (isFloat(x.type) || x.type == Ty::I1 || x.type == Ty::Index)
    x = *convertTo(x, Ty::I32);
  if (x.type != Ty::I32) // extui, so the masked value is never negative
    x = emitCast(bitWidth(x.type) > 32 ? "trunci" : "extui", x, Ty::I32);
  x = emitBinary("arith.andi", x, constInt(x.type, mask), x.type);
  Value r =
      emitCast(rng.percent(50) ? "index_castui" : "index_cast", x, Ty::Index);
  r.limit = mask + 1;
  return r;
}

Value Generator::clampIndex(const Value &v, uint64_t length) {
  if (v.limit <= length)
    return v;
  Value r = emitBinary("arith.remui", v, constIndex(length), Ty::Index);
  r.limit = length;
  return r;
}

//--- Expressions
//----------------------------------------------------------===//

Value Generator::genExpr(Ty t, int depth) {
  if (t == Ty::I1)
    return genCond(depth);
  if (depth <= 0 || rng.percent(35))
    return genLeaf(t);
  return isFloat(t) ? genFloatOp(t, depth) : genIntOp(t, depth);
}

Value Generator::genLeaf(Ty t) {
  switch (rng.weighted({5, 2, 4, 2})) {
  case 0:
    if (auto v = pickPool([&](const Value &v) { return v.type == t; }))
      return *v;
    break;
  case 1:
    if (auto v = pickPool(
            [&](const Value &v) { return v.type != Ty::BF16 || allowBf16; }))
      if (auto c = convertTo(*v, t))
        return limitMagnitude(*c);
    break;
  case 2:
    return genLoad(t);
  default:
    break;
  }
  return genConstant(t);
}

/// A load from an input, preferably of type |t|, converted to |t|.
Value Generator::genLoad(Ty t) {
  std::vector<const BindingPlan *> inputs, same;
  for (const BindingPlan &b : bindings) {
    if (b.output)
      continue;
    inputs.push_back(&b);
    if (b.element.type == t)
      same.push_back(&b);
  }
  const BindingPlan &b =
      *(!same.empty() && rng.percent(70) ? rng.pick(same) : rng.pick(inputs));
  Value x = loadFrom(b);
  if (auto c = convertTo(x, t))
    return limitMagnitude(*c);
  return genConstant(t);
}

/// The harness fills float inputs in [-2, 2), and any bits for integers.
Value Generator::loadFrom(const BindingPlan &b) {
  Value index = genIndex(b.elements);
  Value x = makeValue(b.element.type);
  emit(x.name + " = memref.load " + b.ssa + "[" + index.name + "] : memref<?x" +
       mlirName(x.type) + ">");
  x.mag = 2;
  return x;
}

/// An index below |length|: the invocation's element, a loop's induction
/// variable, a mix of both, one from data, or a constant.
Value Generator::genIndex(uint64_t length) {
  switch (rng.weighted({4, 5, 2, 2, 1})) {
  case 0:
    return clampIndex(invocation, length);
  case 1:
    if (auto v = pickPool([](const Value &v) { return v.type == Ty::Index; }))
      return clampIndex(*v, length);
    return clampIndex(invocation, length);
  case 2: {
    auto v = pickPool([](const Value &v) { return v.type == Ty::Index; });
    Value sum =
        emitBinary("arith.addi", invocation, v ? *v : invocation, Ty::Index);
    sum.limit = invocation.limit + (v ? v->limit : invocation.limit);
    return clampIndex(sum, length);
  }
  case 3: {
    Ty t = static_cast<Ty>(
        rng.range(static_cast<int>(Ty::I8), static_cast<int>(Ty::I64)));
    return clampIndex(indexFromInt(genExpr(t, 1), 0x7fffffff), length);
  }
  default:
    return constIndex(rng.below(length));
  }
}

Value Generator::genIntOp(Ty t, int depth) {
  switch (rng.weighted({10, 2, 2})) {
  case 1: {
    Value c = genCond(depth - 1);
    Value a = genExpr(t, depth - 1);
    return emitSelect(c, a, genExpr(t, depth - 1));
  }
  case 2:
    if (auto v = convertTo(genExpr(randomArithType(), depth - 1), t))
      return *v;
    return genLeaf(t);
  default: {
    Value a = genExpr(t, depth - 1);
    Value b = genExpr(t, depth - 1);
    return intBinary(rng.below(kNumIntOps), a, b);
  }
  }
}

Value Generator::genFloatOp(Ty t, int depth) {
  unsigned rare = allowInexactMath ? 1 : 0;
  size_t kind = rng.weighted({5, 3, 3, 2, 2, 1, 1, 2, 2, rare, rare});
  if (kind == 8) {
    Ty from = randomArithType();
    if (auto v = convertTo(genExpr(from, depth - 1), t))
      return limitMagnitude(*v);
    return genLeaf(t);
  }
  Value a = genExpr(t, depth - 1);
  switch (kind) {
  case 5:
  case 6:
    return fUnary(a, kind == 6);
  case 7: {
    Value c = genCond(depth - 1);
    return emitSelect(c, a, genExpr(t, depth - 1));
  }
  case 10:
    return fSqrt(a);
  default:
    break;
  }
  Value b = genExpr(t, depth - 1);
  switch (kind) {
  case 2:
    return fMul(a, b);
  case 3:
  case 4:
    return fMinMax(a, b, kind == 3);
  case 9:
    return fDiv(a, b);
  default:
    return limitMagnitude(fAdd(a, b, kind == 1));
  }
}

/// An i1 every backend computes alike: from integers, exact floats and
/// induction variables only.
Value Generator::genCond(int depth) {
  switch (rng.weighted({5, 3, 2, depth > 0 ? 2u : 0u, 2})) {
  case 0:
    return genIntCompare(depth);
  case 1:
    return genFloatCompare(depth);
  case 2:
    if (auto v = pickPool([](const Value &v) { return v.type == Ty::Index; })) {
      static const char *const preds[] = {"ult", "ule", "slt", "eq", "ne"};
      Value c = constIndex(rng.below(std::max<uint64_t>(v->limit, 1)));
      return emitCompare("cmpi", preds[rng.below(5)], *v, c);
    }
    return genIntCompare(depth);
  case 3: {
    static const char *const ops[] = {"arith.andi", "arith.ori", "arith.xori"};
    Value a = genCond(depth - 1);
    Value b = genCond(depth - 1);
    return emitBinary(ops[rng.below(3)], a, b, Ty::I1);
  }
  default: {
    Ty t = static_cast<Ty>(
        rng.range(static_cast<int>(Ty::I8), static_cast<int>(Ty::I64)));
    Value x = genExpr(t, depth - 1);
    uint64_t bit = uint64_t(1) << rng.below(bitWidth(t));
    Value masked = emitBinary("arith.andi", x, constInt(t, bit), t);
    return emitCompare("cmpi", "ne", masked, constInt(t, 0));
  }
  }
}

Value Generator::genIntCompare(int depth) {
  static const char *const preds[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                      "sge", "ult", "ule", "ugt", "uge"};
  Ty t = static_cast<Ty>(
      rng.range(static_cast<int>(Ty::I8), static_cast<int>(Ty::I64)));
  Value a = genExpr(t, depth - 1);
  Value b = rng.percent(40) ? genConstant(t) : genExpr(t, depth - 1);
  return emitCompare("cmpi", preds[rng.below(10)], a, b);
}

Value Generator::genFloatCompare(int depth) {
  static const char *const preds[] = {"oeq", "one", "olt", "ole", "ogt", "oge"};
  Ty t = randomArithType();
  if (!isFloat(t))
    t = Ty::F32;
  Value a = genExactFloat(t, depth - 1);
  Value b = rng.percent(40) ? genConstant(t) : genExactFloat(t, depth - 1);
  return emitCompare("cmpf", preds[rng.below(6)], a, b);
}

/// A float that is bit-identical on every backend (up to the sign of zero).
Value Generator::genExactFloat(Ty t, int depth) {
  switch (rng.weighted({4, 4, 2, 1, depth > 0 ? 2u : 0u})) {
  case 0:
    if (auto v = pickPool([&](const Value &v) {
          return isFloat(v.type) && v.isExact() &&
                 (v.type == t || bitWidth(v.type) < bitWidth(t));
        }))
      return *convertExactly(*v, t);
    [[fallthrough]];
  case 1:
    for (int attempt = 0; attempt < 3; ++attempt) {
      const BindingPlan &b = bindings[rng.below(bindings.size())];
      bool fits = b.element.type == t || isInt(b.element.type) ||
                  bitWidth(b.element.type) < bitWidth(t);
      if (!b.output && fits)
        return *convertExactly(loadFrom(b), t);
    }
    [[fallthrough]];
  case 2: {
    Ty from = static_cast<Ty>(
        rng.range(static_cast<int>(Ty::I8), static_cast<int>(Ty::I64)));
    return intToFloat(genExpr(from, 0), t);
  }
  case 3:
    return genConstant(t);
  default: {
    Value a = genExactFloat(t, depth - 1);
    if (rng.percent(30))
      return fUnary(a, rng.percent(50));
    Value b = genExactFloat(t, depth - 1);
    return fMinMax(a, b, rng.percent(50));
  }
  }
}

/// target op extra: integers wrap, floats add (then stay below the limit).
Value Generator::combine(const Value &target, const Value &extra) {
  if (isFloat(target.type))
    return limitMagnitude(fAdd(target, extra, rng.percent(30)));
  return emitBinary(rng.percent(50) ? "arith.xori" : "arith.addi", target,
                    extra, target.type);
}

/// Folds the region's unconsumed statement results into |targets|, so every
/// loop and branch can change an output. A float that backends may round
/// differently only goes into floats.
void Generator::absorbPending(std::vector<Value> &targets) {
  std::vector<Value> pending;
  std::swap(pending, scopes.back().pending);
  for (const Value &p : pending) {
    std::vector<size_t> fits;
    for (size_t i = 0; i < targets.size(); ++i)
      if (p.isExact() || isFloat(targets[i].type))
        fits.push_back(i);
    if (fits.empty())
      continue;
    Value &target = targets[rng.pick(fits)];
    if (auto c = convertTo(p, target.type))
      target = combine(target, limitMagnitude(*c));
  }
}

//--- Statements
//-----------------------------------------------------------===//

void Generator::genStatements(int count, int depth) {
  for (int i = 0; i < count; ++i)
    genStatement(depth);
}

void Generator::genStatement(int depth) {
  bool regions = depth > 0;
  bool loops =
      regions && loopDepth < kMaxLoopDepth && tripProduct * 2 <= kMaxWork;
  switch (
      rng.weighted({3, loops ? 4u : 0u, loops ? 2u : 0u, regions ? 2u : 0u})) {
  case 1:
    return genFor(depth);
  case 2:
    return genWhile(depth);
  case 3:
    return genIf(depth);
  default:
    return genLet();
  }
}

void Generator::genLet() {
  Ty t = randomArithType();
  defineResult(genExpr(t, rng.range(1, 2)));
}

void Generator::noteTrips(Trips trips) {
  features.mayRunZeroTimes |= trips.min == 0;
  features.mayRunOnce |= trips.min <= 1 && trips.max >= 1;
}

LoopHeader Generator::genLoopHeader(uint64_t maxTrips) {
  bool strided = stridedLength && ceilDiv(*stridedLength, count) <= maxTrips;
  LoopHeader h;
  switch (rng.weighted({2, 2, 4, 3, 2, strided ? 2u : 0u})) {
  case 0:
    h = staticLoop(0);
    break;
  case 1:
    h = staticLoop(1);
    break;
  case 2:
    h = staticLoop(rng.range(2, static_cast<int64_t>(maxTrips)));
    break;
  case 3:
    h = dataBoundLoop(maxTrips);
    break;
  case 4:
    h = invocationBoundLoop(maxTrips);
    break;
  default:
    h = stridedLoop();
    break;
  }
  noteTrips(h.trips);
  return h;
}

/// Constant bounds; zero trips both with lb == ub and with lb > ub.
LoopHeader Generator::staticLoop(uint64_t trips) {
  LoopHeader h;
  uint64_t step = rng.range(1, 3), lb = rng.range(0, 4), ub;
  if (trips == 0)
    ub = lb - rng.range(0, std::min<int64_t>(lb, 2));
  else
    ub = lb + (trips - 1) * step + rng.range(1, step);
  h.lb = constIndex(lb);
  h.ub = constIndex(ub);
  h.step = constIndex(step);
  h.trips = {trips, trips};
  h.ivLimit = std::max<uint64_t>(ub, 1);
  features.staticZeroTripLoop |= trips == 0;
  features.staticOneTripLoop |= trips == 1;
  return h;
}

/// The upper bound is input data masked to a small range (0 included).
LoopHeader Generator::dataBoundLoop(uint64_t maxTrips) {
  LoopHeader h;
  uint64_t mask = 1;
  while (mask * 2 + 1 <= maxTrips && rng.percent(70))
    mask = mask * 2 + 1;
  uint64_t lb = rng.range(0, 2), step = rng.range(1, 2);
  Ty t = static_cast<Ty>(
      rng.range(static_cast<int>(Ty::I8), static_cast<int>(Ty::I64)));
  h.lb = constIndex(lb);
  h.ub = indexFromInt(rng.percent(70) ? genLoad(t) : genExpr(t, 1), mask);
  h.step = constIndex(step);
  h.trips = {0, mask > lb ? ceilDiv(mask - lb, step) : 0};
  h.ivLimit = mask;
  features.dataDependentTrips = true;
  return h;
}

/// Bounds from the invocation index: i % K trips, or K - i % K.
LoopHeader Generator::invocationBoundLoop(uint64_t maxTrips) {
  LoopHeader h;
  uint64_t k = rng.range(2, static_cast<int64_t>(maxTrips));
  Value r = emitBinary("arith.remui", invocation, constIndex(k), Ty::Index);
  r.limit = k;
  h.step = constIndex(1);
  if (rng.percent(50)) {
    h.lb = constIndex(0);
    h.ub = r;
    h.trips = {0, k - 1};
  } else {
    h.lb = r;
    h.ub = constIndex(k);
    h.trips = {1, k};
  }
  h.ivLimit = k;
  features.invocationDependentTrips = true;
  return h;
}

/// `%j = %i to %len step %count`: none for invocations at or past len.
LoopHeader Generator::stridedLoop() {
  LoopHeader h;
  h.lb = invocation;
  h.ub = *lengthIndex;
  h.step = countIndex;
  h.trips = {0, ceilDiv(*stridedLength, count)};
  h.ivLimit = *stridedLength;
  features.invocationDependentTrips = true;
  return h;
}

/// 1-3 loop-carried types; f16/bf16 only in short loops, where their
/// coarse rounding keeps the tolerance useful.
std::vector<Ty> Generator::carriedTypes(uint64_t maxTrips) {
  std::vector<Ty> types;
  int n = static_cast<int>(rng.weighted({5, 3, 2})) + 1;
  for (int i = 0; i < n; ++i) {
    Ty t = randomArithType();
    if ((t == Ty::F16 || t == Ty::BF16) && maxTrips > 8)
      t = Ty::F32;
    types.push_back(t);
  }
  features.maxIterArgs =
      std::max<unsigned>(features.maxIterArgs, static_cast<unsigned>(n));
  return types;
}

/// Inside the loop: a carried float's magnitude is its clamp bound, and its
/// error is a fresh symbol until resolveLoop knows it.
Value Generator::carriedValue(const Value &init, const std::string &name,
                              int symbol) {
  Value v = init;
  v.name = name;
  if (isFloat(v.type)) {
    v.mag = std::max(carriedLimit(v.type), powerOfTwoAtLeast(init.mag));
    v.err = ErrorForm();
    v.err.terms[symbol] = 1;
  }
  return v;
}

/// acc' = acc op t, where t is often an input element: sums, min/max, xor
/// and friends. Float updates are at most 1-Lipschitz in acc (a product's
/// other side is clamped to [-1, 1]) so rounding differences cannot grow
/// from trip to trip; fitCarried enforces it for what t brings in.
Value Generator::genCarriedUpdate(const Value &acc) {
  Value t = rng.percent(60) ? genLoad(acc.type) : genExpr(acc.type, 1);
  if (isFloat(acc.type)) {
    switch (rng.weighted({5, 2, 2, 3, 3, 1, 2})) {
    case 0:
      return fAdd(acc, t, false);
    case 1:
      return fAdd(acc, t, true);
    case 2:
      return fAdd(t, acc, true);
    case 3:
    case 4:
      return fMinMax(acc, t, rng.percent(50));
    case 5:
      return emitSelect(genCond(1), acc, t);
    default:
      return fMul(acc, fClampRange(t, -1, 1));
    }
  }
  static const char *const ops[] = {"addi",  "xori", "minsi", "maxsi", "minui",
                                    "maxui", "subi", "ori",   "muli"};
  size_t k = rng.weighted({4, 3, 2, 2, 2, 2, 1, 1, 1, 1});
  if (k == 9)
    return emitSelect(genCond(1), acc, t);
  return emitBinary(std::string("arith.") + ops[k], acc, t, acc.type);
}

/// A carried float's yield must depend on the carried errors with total
/// weight <= 1 (else scale it down by a power of two) and stay within the
/// carried bound (else clamp), the two facts carriedValue assumed.
Value Generator::fitCarried(Value y, const std::vector<int> &symbols,
                            double bound) {
  if (!isFloat(y.type))
    return y;
  double weight = 0;
  for (int s : symbols)
    weight += y.err.coefficient(s);
  if (weight > 1)
    y = fScale(y, -exponentAtLeast(weight), false);
  if (y.mag > bound)
    y = fClamp(y, bound);
  return y;
}

std::vector<Value> Generator::finishYields(const std::vector<Value> &carried,
                                           std::vector<Value> yields,
                                           const std::vector<int> &symbols) {
  absorbPending(yields);
  for (size_t k = 0; k < yields.size(); ++k)
    yields[k] = fitCarried(yields[k], symbols, carried[k].mag);
  return yields;
}

/// Results of a loop: a float's error bound after up to |maxTrips| trips
/// (the largest over 0..maxTrips, as it may stop at any), from iterating the
/// affine map from carried errors to yielded errors.
void Generator::defineLoopResults(const std::string &name,
                                  const std::vector<Value> &inits,
                                  const std::vector<Value> &carried,
                                  const std::vector<Value> &yields,
                                  uint64_t maxTrips) {
  std::map<int, ErrorForm> current;
  std::vector<ErrorForm> bound(inits.size());
  for (size_t k = 0; k < inits.size(); ++k) {
    bound[k] = inits[k].err;
    if (isFloat(inits[k].type))
      current[carried[k].err.terms.begin()->first] = inits[k].err;
  }
  for (uint64_t trip = 0; trip < maxTrips && !current.empty(); ++trip) {
    std::map<int, ErrorForm> next;
    for (size_t k = 0; k < inits.size(); ++k) {
      if (!isFloat(inits[k].type))
        continue;
      ErrorForm e = substitute(yields[k].err, current);
      bound[k] = upper(bound[k], e);
      next[carried[k].err.terms.begin()->first] = e;
    }
    current = std::move(next);
  }
  for (size_t k = 0; k < inits.size(); ++k) {
    Value r = carried[k];
    r.name = inits.size() == 1 ? name : name + "#" + std::to_string(k);
    r.err = bound[k];
    r.limit = 0;
    defineResult(r);
  }
}

std::string typeList(const std::vector<Value> &values) {
  std::string text;
  for (const Value &v : values)
    text += (text.empty() ? "" : ", ") + std::string(mlirName(v.type));
  return text;
}

std::string nameList(const std::vector<Value> &values) {
  std::string text;
  for (const Value &v : values)
    text += (text.empty() ? "" : ", ") + v.name;
  return text;
}

void Generator::emitYield(const char *op, const std::vector<Value> &values) {
  emit(std::string(op) + " " + nameList(values) + " : " + typeList(values));
}

void Generator::enterLoop(uint64_t maxTrips) {
  ++loopDepth;
  features.nestedLoop |= loopDepth >= 2;
  tripProduct *= std::max<uint64_t>(maxTrips, 1);
}

void Generator::leaveLoop(uint64_t maxTrips) {
  --loopDepth;
  tripProduct /= std::max<uint64_t>(maxTrips, 1);
}

/// `%r = scf.for %j = lb to ub step s iter_args(...)`, the body a few
/// statements and one update per carried value.
void Generator::genFor(int depth) {
  LoopHeader h = genLoopHeader(std::min<uint64_t>(64, kMaxWork / tripProduct));
  std::vector<Ty> types = carriedTypes(h.trips.max);
  std::vector<Value> inits, carried;
  std::vector<int> symbols;
  for (Ty t : types)
    inits.push_back(genExpr(t, 1));
  std::string name = fresh(), iv = fresh(), args;
  for (const Value &init : inits) {
    symbols.push_back(nextSymbol++);
    carried.push_back(carriedValue(init, fresh(), symbols.back()));
    args +=
        (args.empty() ? "" : ", ") + carried.back().name + " = " + init.name;
  }
  std::string results =
      inits.size() == 1 ? name : name + ":" + std::to_string(inits.size());
  emit(results + " = scf.for " + iv + " = " + h.lb.name + " to " + h.ub.name +
       " step " + h.step.name + " iter_args(" + args + ") -> (" +
       typeList(inits) + ") {");
  ++indent;
  scopes.emplace_back();
  Value ivValue = makeValue(Ty::Index, iv);
  ivValue.limit = h.ivLimit;
  define(ivValue);
  for (const Value &c : carried)
    define(c);
  enterLoop(h.trips.max);
  genStatements(static_cast<int>(rng.range(0, 2)), depth - 1);
  std::vector<Value> yields;
  for (const Value &c : carried)
    yields.push_back(genCarriedUpdate(c));
  yields = finishYields(carried, yields, symbols);
  emitYield("scf.yield", yields);
  leaveLoop(h.trips.max);
  scopes.pop_back();
  --indent;
  emit("}");
  defineLoopResults(name, inits, carried, yields, h.trips.max);
}

/// A counter that makes an scf.while finite: it starts from a constant or
/// from masked input data (so some invocations run 0 trips), and moves
/// toward its exit by a constant step without wrapping.
Counter Generator::genCounter(uint64_t budget) {
  Counter c;
  Ty t = static_cast<Ty>(
      rng.range(static_cast<int>(Ty::I8), static_cast<int>(Ty::I64)));
  c.down = rng.percent(30);
  c.step = rng.range(1, 3);
  uint64_t mask = 1;
  while (mask * 2 + 1 <= std::min<uint64_t>(budget, 63) && rng.percent(70))
    mask = mask * 2 + 1;
  bool fromData = rng.percent(60);
  uint64_t initMin = 0, initMax = mask;
  if (fromData) {
    Value data = genLoad(t);
    c.init = emitBinary("arith.andi", data, constInt(t, mask), t);
  } else {
    initMin = initMax = rng.range(0, static_cast<int64_t>(mask));
    c.init = constInt(t, initMin);
  }
  if (c.down) {
    c.trips = {ceilDiv(initMin, c.step), ceilDiv(initMax, c.step)};
  } else {
    c.limit = rng.range(1, static_cast<int64_t>(budget));
    c.trips.max = initMin >= c.limit ? 0 : ceilDiv(c.limit - initMin, c.step);
    c.trips.min = initMax >= c.limit ? 0 : ceilDiv(c.limit - initMax, c.step);
  }
  c.dataExit = rng.percent(40);
  if (c.dataExit)
    c.trips.min = 0;
  return c;
}

/// The before region: the counter's test, sometimes and-ed with a data
/// test; it forwards its arguments unchanged to the after region.
std::vector<Value> Generator::whileBefore(const std::string &header,
                                          const std::vector<Value> &inits,
                                          const std::vector<int> &symbols,
                                          const Counter &counter) {
  std::vector<Value> before;
  std::string args;
  for (size_t k = 0; k < inits.size(); ++k) {
    before.push_back(carriedValue(inits[k], fresh(), symbols[k]));
    args +=
        (args.empty() ? "" : ", ") + before.back().name + " = " + inits[k].name;
  }
  emit(header + " = scf.while (" + args + ") : (" + typeList(inits) + ") -> (" +
       typeList(inits) + ") {");
  ++indent;
  scopes.emplace_back();
  for (const Value &b : before)
    define(b);
  const Value &c = before[0];
  const char *pred = counter.down ? "sgt" : rng.percent(50) ? "ult" : "slt";
  Value bound = constInt(c.type, counter.down ? 0 : counter.limit);
  Value more = emitCompare("cmpi", pred, c, bound);
  if (counter.dataExit)
    more = emitBinary("arith.andi", more, genCond(1), Ty::I1);
  emit("scf.condition(" + more.name + ") " + nameList(before) + " : " +
       typeList(before));
  scopes.pop_back();
  --indent;
  return before;
}

void Generator::genWhile(int depth) {
  uint64_t budget = std::min<uint64_t>(32, kMaxWork / tripProduct);
  Counter counter = genCounter(budget);
  std::vector<Value> inits = {counter.init};
  for (int k = static_cast<int>(rng.range(0, 2)); k > 0; --k) {
    Ty t = randomArithType();
    inits.push_back(genExpr(t == Ty::F16 || t == Ty::BF16 ? Ty::F32 : t, 1));
  }
  features.whileLoop = true;
  noteTrips(counter.trips);
  std::vector<int> symbols;
  for (size_t k = 0; k < inits.size(); ++k)
    symbols.push_back(nextSymbol++);
  std::string name = fresh();
  whileBefore(inits.size() == 1 ? name
                                : name + ":" + std::to_string(inits.size()),
              inits, symbols, counter);
  std::vector<Value> after;
  std::string params;
  for (size_t k = 0; k < inits.size(); ++k) {
    after.push_back(carriedValue(inits[k], fresh(), symbols[k]));
    params += (params.empty() ? "" : ", ") + after.back().name + ": " +
              mlirName(inits[k].type);
  }
  emit("} do {");
  emit("^bb0(" + params + "):");
  ++indent;
  scopes.emplace_back();
  for (const Value &a : after)
    define(a);
  enterLoop(counter.trips.max);
  genStatements(static_cast<int>(rng.range(0, 2)), depth - 1);
  std::vector<Value> rest;
  for (size_t k = 1; k < after.size(); ++k)
    rest.push_back(genCarriedUpdate(after[k]));
  rest = finishYields(std::vector<Value>(after.begin() + 1, after.end()), rest,
                      symbols);
  Value step = constInt(after[0].type, counter.step);
  std::vector<Value> yields = {emitBinary(
      counter.down ? "arith.subi" : "arith.addi", after[0], step, step.type)};
  yields.insert(yields.end(), rest.begin(), rest.end());
  emitYield("scf.yield", yields);
  leaveLoop(counter.trips.max);
  scopes.pop_back();
  --indent;
  emit("}");
  defineLoopResults(name, inits, after, yields, counter.trips.max);
}

/// `scf.if` with 1-3 results and both branches.
void Generator::genIf(int depth) {
  Value cond = genCond(2);
  std::vector<Ty> types;
  for (int k = static_cast<int>(rng.weighted({5, 3, 2})); k >= 0; --k)
    types.push_back(randomArithType());
  std::string name = fresh();
  std::string results =
      types.size() == 1 ? name : name + ":" + std::to_string(types.size());
  std::string typeText;
  for (Ty t : types)
    typeText += (typeText.empty() ? "" : ", ") + std::string(mlirName(t));
  emit(results + " = scf.if " + cond.name + " -> (" + typeText + ") {");
  std::vector<Value> thenValues = genBranch(types, depth);
  emit("} else {");
  std::vector<Value> elseValues = genBranch(types, depth);
  emit("}");
  features.ifWithResults = true;
  for (size_t k = 0; k < types.size(); ++k) {
    Value r = makeValue(
        types[k], types.size() == 1 ? name : name + "#" + std::to_string(k));
    r.mag = std::max(thenValues[k].mag, elseValues[k].mag);
    r.err = upper(thenValues[k].err, elseValues[k].err);
    defineResult(r);
  }
}

std::vector<Value> Generator::genBranch(const std::vector<Ty> &types,
                                        int depth) {
  ++indent;
  scopes.emplace_back();
  genStatements(static_cast<int>(rng.range(0, 2)), depth - 1);
  std::vector<Value> yields;
  for (Ty t : types)
    yields.push_back(genExpr(t, 1));
  absorbPending(yields);
  emitYield("scf.yield", yields);
  scopes.pop_back();
  --indent;
  return yields;
}

//--- The body
//---------------------------------------------------------------===//

/// `wg_id * wg_size + tid` along |dim|, through the kb ops or the gpu ones.
Value Generator::emitLinearId(const char *dim, bool viaGpu) {
  std::string d = dim;
  Value wg = makeValue(Ty::Index), size = makeValue(Ty::Index),
        tid = makeValue(Ty::Index);
  emit(wg.name + (viaGpu ? " = gpu.block_id " : " = kb.workgroup_id ") + d);
  emit(size.name + (viaGpu ? " = gpu.block_dim " : " = kb.workgroup_size ") +
       d);
  emit(tid.name + " = gpu.thread_id " + d);
  Value base = emitBinary("arith.muli", wg, size, Ty::Index);
  return rng.percent(50) ? emitBinary("arith.addi", base, tid, Ty::Index)
                         : emitBinary("arith.addi", tid, base, Ty::Index);
}

/// Opens the region where |invocation| is an element below count: a guard
/// (1-D or 2-D; the grid has invocations past the end) or a grid-stride loop.
/// The caller closes it.
void Generator::emitInvocationIndex() {
  bool viaGpu = rng.percent(30);
  if (layout == Layout::Guard2D) {
    Value gx = emitLinearId("x", viaGpu), gy = emitLinearId("y", viaGpu);
    Value w = named("%width"), h = named("%height");
    Value inX = emitCompare("cmpi", "ult", gx, w);
    Value inY = emitCompare("cmpi", rng.percent(50) ? "ult" : "slt", gy, h);
    emit("scf.if " + emitBinary("arith.andi", inX, inY, Ty::I1).name + " {");
    ++indent;
    invocation =
        emitBinary("arith.addi", emitBinary("arith.muli", gy, w, Ty::Index), gx,
                   Ty::Index);
  } else if (layout == Layout::GridStride) {
    Value start = emitLinearId("x", viaGpu), groups = makeValue(Ty::Index);
    emit(groups.name +
         (viaGpu ? " = gpu.grid_dim x" : " = kb.workgroup_count x"));
    Value size = makeValue(Ty::Index);
    emit(size.name + " = kb.workgroup_size x");
    Value stride = emitBinary("arith.muli", groups, size, Ty::Index);
    invocation = makeValue(Ty::Index);
    emit("scf.for " + invocation.name + " = " + start.name + " to " +
         countIndex.name + " step " + stride.name + " {");
    ++indent;
  } else {
    invocation = emitLinearId("x", viaGpu);
    static const char *const forms[] = {"ult", "slt", "ugt", "sgt"};
    size_t form = rng.below(4);
    Value inRange =
        form < 2 ? emitCompare("cmpi", forms[form], invocation, countIndex)
                 : emitCompare("cmpi", forms[form], countIndex, invocation);
    emit("scf.if " + inRange.name + " {");
    ++indent;
  }
  invocation.limit = count;
  define(invocation);
}

/// Bindings, constants, the invocation index, then statements and stores.
void Generator::emitFunction() {
  for (size_t k = 0; k < bindings.size(); ++k)
    emit(bindings[k].ssa + " = kb.binding " + std::to_string(k) +
         " : memref<?x" + mlirName(bindings[k].element.type) + ">");
  for (size_t k = 0; k < constants.size(); ++k) {
    const ConstantPlan &c = constants[k];
    Value v = makeValue(c.type, "%" + c.name + "_value");
    emit(v.name + " = kb.constant " + std::to_string(k) + " : " +
         mlirName(c.type));
    v.mag = std::fabs(c.value);
    define(v);
    if (c.role == ConstantRole::Parameter)
      continue;
    Value index = makeValue(Ty::Index, "%" + c.name);
    emit(index.name + " = arith.index_castui " + v.name + " : " +
         mlirName(c.type) + " to index");
    index.limit = c.bits + 1;
    define(index);
    if (c.role == ConstantRole::Count)
      countIndex = index;
    if (c.role == ConstantRole::Length)
      lengthIndex = index;
  }
  if (kAvoidNarrowConstants)
    emitOpaqueZeros(
        named(layout == Layout::Guard2D ? "%width_value" : "%n_value"));
  if (layout == Layout::Guard2D) {
    countIndex =
        emitBinary("arith.muli", named("%width"), named("%height"), Ty::Index);
    countIndex.limit = count + 1;
  }
  emitInvocationIndex();
  emitBody();
  --indent;
  emit("}");
  emit("return");
}

void Generator::emitBody() {
  scopes.emplace_back();
  genStatements(static_cast<int>(rng.range(1, 3)), 3);
  std::vector<BindingPlan *> outputs;
  for (BindingPlan &b : bindings)
    if (b.output)
      outputs.push_back(&b);
  for (size_t k = outputs.size(); k > 1; --k)
    std::swap(outputs[k - 1], outputs[rng.below(k)]);
  for (BindingPlan *out : outputs) {
    if (rng.percent(40))
      genStatement(2);
    genOutputStore(*out);
  }
  scopes.pop_back();
}

/// Every form writes element i of |out| at least once, on every path, and
/// only from this invocation: plainly, overwritten under an scf.if without
/// results, from both sides of one, or on each trip of a loop without
/// results (the last trip's value stays; none when it runs 0 times).
void Generator::genOutputStore(BindingPlan &out) {
  bool loop = tripProduct * 2 <= kMaxWork;
  size_t form = rng.weighted({4, 2, 2, loop ? 2u : 0u});
  if (form != 2)
    store(out, genOutputValue(out));
  if (form == 0)
    return;
  LoopHeader h;
  if (form == 3) {
    h = genLoopHeader(std::min<uint64_t>(16, kMaxWork / tripProduct));
    Value iv = makeValue(Ty::Index);
    iv.limit = h.ivLimit;
    emit("scf.for " + iv.name + " = " + h.lb.name + " to " + h.ub.name +
         " step " + h.step.name + " {");
    enterLoop(h.trips.max);
    scopes.emplace_back();
    define(iv);
    features.loopWithoutResults = true;
  } else {
    emit("scf.if " + genCond(2).name + " {");
    scopes.emplace_back();
    features.ifWithoutResults = true;
  }
  ++indent;
  genStatements(static_cast<int>(rng.range(0, 1)), 1);
  store(out, genOutputValue(out));
  --indent;
  scopes.pop_back();
  if (form == 2) {
    emit("} else {");
    ++indent;
    scopes.emplace_back();
    store(out, genOutputValue(out));
    scopes.pop_back();
    --indent;
  }
  if (form == 3)
    leaveLoop(h.trips.max);
  emit("}");
}

Value Generator::genOutputValue(const BindingPlan &out) {
  std::vector<Value> value = {genExpr(out.element.type, 2)};
  absorbPending(value);
  return value[0];
}

/// Float outputs keep the largest error bound stored into them. No carried
/// symbol is left at this level (stores are never inside a loop with
/// iter_args).
void Generator::store(BindingPlan &out, const Value &v) {
  emit("memref.store " + v.name + ", " + out.ssa + "[" + invocation.name +
       "] : memref<?x" + mlirName(v.type) + ">");
  if (isFloat(v.type))
    out.tolerance = std::max(out.tolerance, v.err.base);
}

//--- Configuration
//----------------------------------------------------------===//

/// 1-D guard, 2-D guard or grid-stride; a few hundred to a few thousand
/// elements; workgroups covering them with extra invocations to guard.
void Generator::chooseShape() {
  static const std::vector<uint32_t> sizes = {1, 7, 32, 64, 96, 128, 256};
  static const std::vector<std::array<uint32_t, 2>> sizes2D = {
      {8, 8}, {16, 4}, {4, 16}, {32, 2}, {5, 3}, {16, 16}, {1, 8}};
  allowBf16 = rng.percent(15);
  allowInexactMath = rng.percent(15);
  layout = static_cast<Layout>(rng.weighted({6, 2, 2}));
  count = rng.percent(10) ? rng.range(1, 64) : rng.range(64, 3000);
  if (layout == Layout::Guard2D) {
    std::array<uint32_t, 2> s = rng.pick(sizes2D);
    wgSize = {s[0], s[1], 1};
    width = rng.range(1, 64);
    height = rng.range(1, 48);
    count = width * height;
    bool exact = width % s[0] == 0 && height % s[1] == 0;
    uint64_t extraX = rng.range(exact, 1), extraY = rng.range(0, 1);
    wgCount = {static_cast<uint32_t>(ceilDiv(width, s[0]) + extraX),
               static_cast<uint32_t>(ceilDiv(height, s[1]) + extraY), 1};
    features.twoDimensional = true;
    return;
  }
  wgSize = {rng.pick(sizes), 1, 1};
  uint64_t cover = ceilDiv(count, wgSize[0]);
  if (layout == Layout::GridStride) {
    wgCount = {static_cast<uint32_t>(rng.range(1, cover + 1)), 1, 1};
    features.gridStride = true;
  } else {
    wgCount = {
        static_cast<uint32_t>(cover + rng.range(count % wgSize[0] == 0, 2)), 1,
        1};
  }
  if (rng.percent(40))
    stridedLength =
        rng.percent(50) ? rng.range(0, count) : rng.range(count, 4 * count);
}

void Generator::chooseBindings() {
  std::vector<ElementInfo> types;
  for (const ElementInfo &e : elementTypes())
    if (e.type != Ty::BF16 || allowBf16)
      types.push_back(e);
  int inputs = static_cast<int>(rng.range(1, 4));
  int outputs = static_cast<int>(rng.range(1, 3));
  uint64_t length = std::max(count, stridedLength.value_or(0));
  for (int k = 0; k < inputs + outputs; ++k) {
    BindingPlan b;
    b.output = k >= inputs;
    b.name =
        (b.output ? "out" : "in") + std::to_string(b.output ? k - inputs : k);
    b.element = rng.pick(types);
    b.elements = b.output ? count : length + rng.range(0, 32);
    bindings.push_back(b);
  }
  for (size_t k = bindings.size(); k > 1; --k)
    std::swap(bindings[k - 1], bindings[rng.below(k)]);
  for (BindingPlan &b : bindings)
    b.ssa = "%" + b.name;
}

void Generator::addConstant(std::string name, ConstantRole role,
                            std::vector<const char *> abiTypes,
                            uint64_t value) {
  const char *abi = rng.pick(abiTypes);
  bool wide = abi[1] == '6';
  ConstantPlan c{std::move(name),
                 abi,
                 wide ? Ty::I64 : Ty::I32,
                 wide ? value : (value & 0xffffffffu),
                 role,
                 0};
  if (abi[0] == 'f') {
    c.type = wide ? Ty::F64 : Ty::F32;
    c.value = rng.range(-32, 32) / 8.0;
    float f = static_cast<float>(c.value);
    uint32_t b32;
    std::memcpy(&b32, &f, 4);
    if (wide)
      std::memcpy(&c.bits, &c.value, 8);
    else
      c.bits = b32;
  }
  constants.push_back(c);
}

void Generator::chooseConstants() {
  if (layout == Layout::Guard2D) {
    addConstant("width", ConstantRole::Width, {"u32", "i32"}, width);
    addConstant("height", ConstantRole::Height, {"u32", "i32"}, height);
  } else {
    addConstant("n", ConstantRole::Count, {"u32", "i32", "u64", "i64"}, count);
  }
  if (stridedLength)
    addConstant("len", ConstantRole::Length, {"u32", "i32"}, *stridedLength);
  for (int k = static_cast<int>(rng.range(0, 3)); k > 0; --k)
    addConstant("p" + std::to_string(constants.size()), ConstantRole::Parameter,
                {"i32", "u32", "i64", "u64", "f32", "f64"}, rng.bits());
  for (size_t k = constants.size(); k > 1; --k)
    std::swap(constants[k - 1], constants[rng.below(k)]);
}

std::string Generator::exportText() const {
  std::string text = "  kb.export @gen_" + std::to_string(seed) + " bindings(";
  for (size_t k = 0; k < bindings.size(); ++k)
    text += (k ? ", " : "") + bindings[k].name + ": " +
            bindings[k].element.abi +
            (bindings[k].output ? " writeonly" : " readonly");
  text += ")\n      constants(";
  for (size_t k = 0; k < constants.size(); ++k)
    text += (k ? ", " : "") + constants[k].name + ": " + constants[k].abi;
  text += ") workgroup_size = [" + std::to_string(wgSize[0]) + ", " +
          std::to_string(wgSize[1]) + ", " + std::to_string(wgSize[2]) + "]\n";
  return text;
}

GeneratedKernel Generator::result() {
  GeneratedKernel k;
  k.name = "gen_" + std::to_string(seed);
  k.mlir = "// Generated by tests/differential/kernel_generator.cpp, seed=" +
           std::to_string(seed) + "\nkb.executable @" + k.name + " {\n" +
           exportText() + "  builtin.module {\n    func.func @" + k.name +
           "() {\n" + body + "    }\n  }\n}\n";
  for (const BindingPlan &b : bindings) {
    k.bindings.push_back({b.element.abi, b.elements, b.output, b.tolerance});
    k.floatTolerance = std::max(k.floatTolerance, b.tolerance);
  }
  for (const ConstantPlan &c : constants)
    k.constants.push_back({c.abi, c.bits});
  k.workgroupCount = wgCount;
  k.workgroupSize = wgSize;
  k.vulkanCompatible = !usedBf16;
  k.features = features;
  k.features.arithmeticTypes.assign(arithTypes.begin(), arithTypes.end());
  return k;
}

GeneratedKernel Generator::run() {
  chooseShape();
  chooseBindings();
  chooseConstants();
  for (const BindingPlan &b : bindings)
    usedBf16 |= b.element.type == Ty::BF16;
  indent = 3;
  scopes.emplace_back();
  emitFunction();
  return result();
}

} // namespace

GeneratedKernel generateKernel(uint64_t seed) { return Generator(seed).run(); }

std::string describeKernel(const GeneratedKernel &kernel) {
  std::string text = kernel.name + ": workgroups [";
  for (int d = 0; d < 3; ++d)
    text += std::to_string(kernel.workgroupCount[d]) + (d < 2 ? ", " : "]");
  text += " of [";
  for (int d = 0; d < 3; ++d)
    text += std::to_string(kernel.workgroupSize[d]) + (d < 2 ? ", " : "]");
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", kernel.floatTolerance);
  text += std::string(", float tolerance ") + buffer +
          (kernel.vulkanCompatible ? "" : ", not for Vulkan (bf16)") + "\n";
  for (size_t k = 0; k < kernel.bindings.size(); ++k) {
    const GeneratedKernel::Binding &b = kernel.bindings[k];
    std::snprintf(buffer, sizeof buffer, ", tolerance %g", b.tolerance);
    text += "  binding " + std::to_string(k) + ": " + b.type + " x " +
            std::to_string(b.elements) + (b.output ? " output" : " input") +
            (b.tolerance > 0 ? buffer : "") + "\n";
  }
  for (size_t k = 0; k < kernel.constants.size(); ++k) {
    std::snprintf(buffer, sizeof buffer, "0x%llx",
                  static_cast<unsigned long long>(kernel.constants[k].bits));
    text += "  constant " + std::to_string(k) + ": " +
            kernel.constants[k].type + " bits " + buffer + "\n";
  }
  return text;
}

} // namespace kb::differential
