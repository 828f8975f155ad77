//===- common/ptx_reader.cpp - Read PTX `.entry` signatures --------------===//
//
// A tokenizer (comments and string literals removed, line numbers kept) and a
// top-level statement reader. Only module headers and `.entry` headers are
// interpreted; every other top-level statement and every body is skipped by
// its shape (`;`-terminated, or a balanced `{...}` block), so PTX features we
// do not know about do not need to be understood to be skipped.
//
//===----------------------------------------------------------------------===//
#include "common/ptx_reader.h"

#include <cctype>
#include <limits>

namespace kb {
namespace {

struct Token {
  enum class Kind { Word, Number, String, Punct };
  Kind kind;
  std::string_view text;
  int line;
};

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

std::string lineRef(int line) { return "line " + std::to_string(line); }

/// Skips the /* comment at |i|, counting its newlines into |line|.
Status skipBlockComment(std::string_view text, size_t &i, int &line) {
  const size_t n = text.size();
  int startLine = line;
  i += 2;
  while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/')) {
    if (text[i] == '\n')
      ++line;
    ++i;
  }
  if (i + 1 >= n)
    return invalidArgument(lineRef(startLine) + ": unterminated /* comment");
  i += 2;
  return okStatus();
}

/// Moves |i| past the string literal that opens at it; a literal ends on its
/// line (PTX strings do not span lines), and a backslash escapes one char.
Status skipStringLiteral(std::string_view text, size_t &i, int line) {
  const size_t n = text.size();
  ++i;
  while (i < n && text[i] != '"' && text[i] != '\n') {
    if (text[i] == '\\' && i + 1 < n && text[i + 1] != '\n')
      ++i;
    ++i;
  }
  if (i >= n || text[i] != '"')
    return invalidArgument(lineRef(line) + ": unterminated string literal");
  ++i;
  return okStatus();
}

/// The end of the run of identifier characters from |i| (numbers also take
/// dots, so `9.0` and `0f3F800000` stay one token).
size_t wordEnd(std::string_view text, size_t i, bool dots) {
  while (i < text.size() && (isIdentChar(text[i]) || (dots && text[i] == '.')))
    ++i;
  return i;
}

/// The kind of token a character starts that is not blank, a comment or a
/// string: a directive (`.entry`) and an identifier are both Words.
Token::Kind tokenKindAt(std::string_view text, size_t i) {
  char c = text[i];
  if (c == '.' && i + 1 < text.size() && isIdentChar(text[i + 1]) &&
      !std::isdigit(static_cast<unsigned char>(text[i + 1])))
    return Token::Kind::Word;
  if (isIdentStart(c))
    return Token::Kind::Word;
  if (std::isdigit(static_cast<unsigned char>(c)))
    return Token::Kind::Number;
  return Token::Kind::Punct;
}

/// Splits |text| into tokens. A directive (`.entry`) and an identifier are
/// both Words; numbers keep their dots (`9.0`) and hex/float suffixes.
Status tokenize(std::string_view text, std::vector<Token> &tokens) {
  int line = 1;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == '\0')
      return invalidArgument(
          lineRef(line) +
          ": found a NUL byte: this is binary data, not PTX text (a cubin or "
          "fatbin?); pass the .ptx file that `nvcc -ptx` writes");
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      KB_RETURN_IF_ERROR(skipBlockComment(text, i, line));
      continue;
    }
    size_t start = i;
    Token::Kind kind = Token::Kind::String;
    if (c == '"') {
      KB_RETURN_IF_ERROR(skipStringLiteral(text, i, line));
    } else {
      kind = tokenKindAt(text, i);
      i = kind == Token::Kind::Punct
              ? i + 1
              : wordEnd(text, i + 1, kind == Token::Kind::Number);
    }
    tokens.push_back({kind, text.substr(start, i - start), line});
  }
  return okStatus();
}

/// Byte size of a PTX fundamental type name without the dot ("u32" -> 4);
/// 0 for names that are not parameter types.
uint32_t ptxTypeSize(std::string_view type) {
  static constexpr struct {
    const char *name;
    uint32_t size;
  } kTypes[] = {
      {"b8", 1},  {"b16", 2}, {"b32", 4},  {"b64", 8},    {"b128", 16},
      {"u8", 1},  {"u16", 2}, {"u32", 4},  {"u64", 8},    {"s8", 1},
      {"s16", 2}, {"s32", 4}, {"s64", 8},  {"f16", 2},    {"f16x2", 4},
      {"f32", 4}, {"f64", 8}, {"bf16", 2}, {"bf16x2", 4}, {"pred", 1},
  };
  for (const auto &t : kTypes)
    if (type == t.name)
      return t.size;
  return 0;
}

class Parser {
public:
  explicit Parser(const std::vector<Token> &tokens) : tokens_(tokens) {}

  StatusOr<PtxModule> parse() {
    PtxModule module;
    bool sawVersion = false;
    while (!atEnd()) {
      const Token &tok = peek();
      if (tok.text == ".version") {
        next();
        KB_ASSIGN_OR_RETURN(
            const Token *v,
            expect(Token::Kind::Number, "a version number (9.0)", tok));
        module.version = std::string(v->text);
        sawVersion = true;
        continue;
      }
      if (!sawVersion)
        return invalidArgument(lineRef(tok.line) +
                               ": expected `.version` as the first directive "
                               "of a PTX module, found `" +
                               std::string(tok.text) + "`; is this PTX text?");
      if (tok.text == ".target") {
        next();
        KB_RETURN_IF_ERROR(parseTarget(tok, module));
        continue;
      }
      if (tok.text == ".address_size") {
        next();
        KB_ASSIGN_OR_RETURN(const Token *v,
                            expect(Token::Kind::Number, "32 or 64", tok));
        if (v->text != "32" && v->text != "64")
          return invalidArgument(lineRef(v->line) +
                                 ": .address_size: expected 32 or 64, found " +
                                 std::string(v->text));
        module.addressSize = v->text == "32" ? 32 : 64;
        continue;
      }
      KB_RETURN_IF_ERROR(parseTopLevelStatement(module));
    }
    if (!sawVersion)
      return invalidArgument("line 1: not a PTX module: no `.version` "
                             "directive (empty input?)");
    return module;
  }

private:
  bool atEnd() const { return pos_ >= tokens_.size(); }
  const Token &peek() const { return tokens_[pos_]; }
  const Token &next() { return tokens_[pos_++]; }
  int lastLine() const { return tokens_.empty() ? 1 : tokens_.back().line; }

  StatusOr<const Token *> expect(Token::Kind kind, const char *what,
                                 const Token &after) {
    if (atEnd())
      return invalidArgument(lineRef(lastLine()) + ": after `" +
                             std::string(after.text) + "`: expected " + what +
                             ", found the end of the file");
    const Token &tok = next();
    if (tok.kind != kind)
      return invalidArgument(lineRef(tok.line) + ": after `" +
                             std::string(after.text) + "`: expected " + what +
                             ", found `" + std::string(tok.text) + "`");
    return &tok;
  }
  StatusOr<const Token *> expectPunct(char c, const Token &after) {
    const char what[] = {'`', c, '`', '\0'};
    KB_ASSIGN_OR_RETURN(const Token *tok,
                        expect(Token::Kind::Punct, what, after));
    if (tok->text[0] != c)
      return invalidArgument(lineRef(tok->line) + ": after `" +
                             std::string(after.text) + "`: expected " + what +
                             ", found `" + std::string(tok->text) + "`");
    return tok;
  }
  bool peekPunct(char c) const {
    return !atEnd() && peek().kind == Token::Kind::Punct && peek().text[0] == c;
  }

  static StatusOr<uint32_t> toU32(const Token &tok, const char *what) {
    uint64_t value = 0;
    if (tok.kind != Token::Kind::Number)
      return invalidArgument(lineRef(tok.line) + ": expected " + what +
                             ", found `" + std::string(tok.text) + "`");
    for (char c : tok.text) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return invalidArgument(lineRef(tok.line) + ": expected " + what +
                               " (a decimal integer), found `" +
                               std::string(tok.text) + "`");
      value = value * 10 + static_cast<uint64_t>(c - '0');
      if (value > std::numeric_limits<uint32_t>::max())
        return invalidArgument(lineRef(tok.line) + ": " + what + " `" +
                               std::string(tok.text) + "` is too large");
    }
    return static_cast<uint32_t>(value);
  }

  Status parseTarget(const Token &directive, PtxModule &module) {
    KB_ASSIGN_OR_RETURN(const Token *t, expect(Token::Kind::Word,
                                               "a target (sm_90)", directive));
    module.target = std::string(t->text);
    // Further comma-separated options: texmode_*, debug, map_f64_to_f32.
    while (peekPunct(',')) {
      const Token &comma = next();
      KB_RETURN_IF_ERROR(
          expect(Token::Kind::Word, "a target option", comma).status());
    }
    return okStatus();
  }

  /// Skips a balanced `{ ... }` whose `{` is the next token.
  Status skipBlock(const Token &owner, const std::string &what) {
    int depth = 0;
    while (!atEnd()) {
      const Token &tok = next();
      if (tok.kind != Token::Kind::Punct)
        continue;
      if (tok.text[0] == '{')
        ++depth;
      else if (tok.text[0] == '}' && --depth == 0)
        return okStatus();
    }
    return invalidArgument(lineRef(owner.line) + ": the body of " + what +
                           " has no closing `}` before the end of the file");
  }

  /// Skips a statement up to its `;` (braces in initializers balanced).
  Status skipStatement(const Token &first) {
    int depth = 0;
    while (!atEnd()) {
      const Token &tok = next();
      if (tok.kind != Token::Kind::Punct)
        continue;
      char c = tok.text[0];
      if (c == '{')
        ++depth;
      else if (c == '}')
        --depth;
      else if (c == ';' && depth <= 0)
        return okStatus();
    }
    return invalidArgument(lineRef(first.line) +
                           ": the statement starting "
                           "with `" +
                           std::string(first.text) +
                           "` has no terminating `;` before the end of the "
                           "file");
  }

  Status parseTopLevelStatement(PtxModule &module) {
    const Token &first = peek();
    if (first.text == ".file") {
      // .file 1 "name" [, timestamp, size] -- no terminating `;`.
      next();
      KB_RETURN_IF_ERROR(
          expect(Token::Kind::Number, "a file number", first).status());
      KB_RETURN_IF_ERROR(
          expect(Token::Kind::String, "a file name string", first).status());
      while (peekPunct(',')) {
        const Token &comma = next();
        KB_RETURN_IF_ERROR(
            expect(Token::Kind::Number, "a number", comma).status());
      }
      return okStatus();
    }
    if (first.text == ".section") {
      next();
      KB_RETURN_IF_ERROR(
          expect(Token::Kind::Word, "a section name", first).status());
      if (!peekPunct('{'))
        return invalidArgument(lineRef(first.line) +
                               ": .section: expected `{` after the name");
      return skipBlock(first, "the .section");
    }
    // Linkage / visibility prefixes of a declaration.
    bool visible = false;
    size_t save = pos_;
    while (!atEnd() && (peek().text == ".visible" || peek().text == ".weak" ||
                        peek().text == ".extern" || peek().text == ".common")) {
      if (peek().text == ".visible" || peek().text == ".weak")
        visible = true;
      next();
    }
    if (!atEnd() && peek().text == ".entry")
      return parseEntry(module, visible);
    if (!atEnd() && peek().text == ".func")
      return skipFunction(peek());
    pos_ = save;
    if (first.kind == Token::Kind::Punct && first.text[0] == '{')
      return invalidArgument(lineRef(first.line) +
                             ": unexpected `{` at the top level of the module");
    next();
    return skipStatement(first);
  }

  Status skipFunction(const Token &func) {
    // `.func [(ret)] name (params) [directives] { body }` or a `;` prototype.
    next();
    while (!atEnd()) {
      if (peekPunct('{'))
        return skipBlock(func, "a .func");
      if (peekPunct(';')) {
        next();
        return okStatus();
      }
      next();
    }
    return invalidArgument(lineRef(func.line) +
                           ": .func has neither a body nor a `;` before the "
                           "end of the file");
  }

  Status parseEntry(PtxModule &module, bool visible) {
    const Token &keyword = next();
    PtxEntry entry;
    entry.visible = visible;
    entry.line = keyword.line;
    KB_ASSIGN_OR_RETURN(const Token *name,
                        expect(Token::Kind::Word, "the entry name", keyword));
    if (name->text[0] == '.')
      return invalidArgument(lineRef(name->line) +
                             ": .entry: expected the entry name, found `" +
                             std::string(name->text) + "`");
    entry.name = std::string(name->text);
    std::string what = "`.entry " + entry.name + "`";
    if (peekPunct('(')) {
      const Token &open = next();
      if (peekPunct(')')) {
        next();
      } else {
        for (;;) {
          KB_ASSIGN_OR_RETURN(PtxParam param, parseParam(open, entry.name));
          entry.params.push_back(std::move(param));
          if (atEnd())
            return invalidArgument(lineRef(lastLine()) + ": " + what +
                                   ": parameter list has no closing `)`");
          const Token &sep = next();
          if (sep.kind == Token::Kind::Punct && sep.text[0] == ')')
            break;
          if (sep.kind != Token::Kind::Punct || sep.text[0] != ',')
            return invalidArgument(lineRef(sep.line) + ": " + what +
                                   ": expected `,` or `)` after parameter " +
                                   std::to_string(entry.params.size() - 1) +
                                   ", found `" + std::string(sep.text) + "`");
        }
      }
    }
    // Performance-tuning directives up to the body (or `;` for a prototype).
    while (!atEnd() && !peekPunct('{') && !peekPunct(';')) {
      const Token &dir = next();
      if (dir.text == ".maxntid" || dir.text == ".reqntid") {
        KB_ASSIGN_OR_RETURN(auto dims, parseDims(dir));
        (dir.text == ".maxntid" ? entry.maxntid : entry.reqntid) = dims;
        continue;
      }
      if (dir.kind != Token::Kind::Word || dir.text[0] != '.')
        return invalidArgument(lineRef(dir.line) + ": " + what +
                               ": expected a directive or the body `{`, "
                               "found `" +
                               std::string(dir.text) + "`");
      // Other directives (.minnctapersm N, .maxnreg N, .explicitcluster,
      // .reqnctapercluster x, y, z, .noreturn, .pragma "..."): skip operands.
      while (!atEnd() && (peek().kind == Token::Kind::Number ||
                          peek().kind == Token::Kind::String || peekPunct(',')))
        next();
      if (peekPunct(';') && dir.text == ".pragma")
        next();
    }
    if (atEnd())
      return invalidArgument(lineRef(keyword.line) + ": " + what +
                             ": expected a body `{` or `;`, found the end of "
                             "the file");
    if (peekPunct(';'))
      next(); // A declaration without a body still names the entry.
    else
      KB_RETURN_IF_ERROR(skipBlock(keyword, what));
    module.entries.push_back(std::move(entry));
    return okStatus();
  }

  StatusOr<std::array<uint32_t, 3>> parseDims(const Token &dir) {
    std::array<uint32_t, 3> dims = {1, 1, 1};
    for (int i = 0; i < 3; ++i) {
      if (atEnd())
        return invalidArgument(lineRef(dir.line) + ": " +
                               std::string(dir.text) +
                               ": expected a thread count, found the end of "
                               "the file");
      KB_ASSIGN_OR_RETURN(dims[i], toU32(next(), "a thread count"));
      if (dims[i] == 0)
        return invalidArgument(lineRef(dir.line) + ": " +
                               std::string(dir.text) +
                               ": thread counts must be at least 1, found 0");
      if (!peekPunct(','))
        break;
      if (i == 2)
        return invalidArgument(lineRef(peek().line) + ": " +
                               std::string(dir.text) +
                               ": expected at most 3 dimensions");
      next();
    }
    return dims;
  }

  StatusOr<PtxParam> parseParam(const Token &open, const std::string &entry) {
    std::string what = "`.entry " + entry + "`";
    if (atEnd() || peek().text != ".param")
      return invalidArgument(
          lineRef(atEnd() ? lastLine() : peek().line) + ": " + what +
          ": expected `.param` in the parameter list, found " +
          (atEnd() ? std::string("the end of the file")
                   : "`" + std::string(peek().text) + "`"));
    const Token &kw = next();
    PtxParam param;
    uint32_t explicitAlign = 0;
    auto parseAlign = [&](const Token &at) -> Status {
      KB_ASSIGN_OR_RETURN(const Token *num,
                          expect(Token::Kind::Number, "an alignment", at));
      KB_ASSIGN_OR_RETURN(uint32_t a, toU32(*num, "an alignment"));
      if (a == 0 || (a & (a - 1)) != 0)
        return invalidArgument(lineRef(num->line) + ": " + what +
                               ": .align must be a power of two, found " +
                               std::to_string(a));
      explicitAlign = a;
      return okStatus();
    };
    if (!atEnd() && peek().text == ".align")
      KB_RETURN_IF_ERROR(parseAlign(next()));
    KB_ASSIGN_OR_RETURN(
        const Token *type,
        expect(Token::Kind::Word, "a parameter type (.u32)", kw));
    uint32_t elementSize =
        type->text.size() > 1 ? ptxTypeSize(type->text.substr(1)) : 0;
    if (type->text[0] != '.' || elementSize == 0)
      return invalidArgument(lineRef(type->line) + ": " + what +
                             ": expected a parameter type such as .u32, .f32 "
                             "or .b8, found `" +
                             std::string(type->text) + "`");
    param.type = std::string(type->text.substr(1));
    // Pointer attributes: `.ptr [.global|.const|.local|.shared] [.align N]`.
    if (!atEnd() && peek().text == ".ptr") {
      next();
      while (!atEnd() && peek().kind == Token::Kind::Word &&
             peek().text[0] == '.') {
        const Token &attr = next();
        if (attr.text == ".align") {
          // A pointee alignment; it does not change the parameter's own.
          KB_RETURN_IF_ERROR(
              expect(Token::Kind::Number, "an alignment", attr).status());
        } else if (attr.text != ".global" && attr.text != ".const" &&
                   attr.text != ".local" && attr.text != ".shared") {
          return invalidArgument(lineRef(attr.line) + ": " + what +
                                 ": unknown .ptr attribute `" +
                                 std::string(attr.text) + "`");
        }
      }
    }
    KB_ASSIGN_OR_RETURN(const Token *name,
                        expect(Token::Kind::Word, "a parameter name", *type));
    if (name->text[0] == '.')
      return invalidArgument(lineRef(name->line) + ": " + what +
                             ": expected a parameter name, found `" +
                             std::string(name->text) + "`");
    param.name = std::string(name->text);
    uint64_t count = 1;
    if (peekPunct('[')) {
      const Token &bracket = next();
      KB_ASSIGN_OR_RETURN(const Token *num, expect(Token::Kind::Number,
                                                   "an array length", bracket));
      KB_ASSIGN_OR_RETURN(uint32_t length, toU32(*num, "an array length"));
      KB_RETURN_IF_ERROR(expectPunct(']', *num).status());
      count = length;
      param.isArray = true;
    }
    uint64_t size = count * elementSize;
    if (size > std::numeric_limits<uint32_t>::max())
      return invalidArgument(lineRef(name->line) + ": " + what +
                             ": parameter `" + param.name + "` is too large");
    param.size = static_cast<uint32_t>(size);
    param.align = explicitAlign ? explicitAlign : elementSize;
    (void)open;
    return param;
  }

  const std::vector<Token> &tokens_;
  size_t pos_ = 0;
};

} // namespace

const PtxEntry *PtxModule::findEntry(std::string_view name) const {
  for (const PtxEntry &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

StatusOr<PtxModule> readPtx(std::string_view text) {
  std::vector<Token> tokens;
  KB_RETURN_IF_ERROR(tokenize(text, tokens));
  Parser parser(tokens);
  return parser.parse();
}

} // namespace kb
