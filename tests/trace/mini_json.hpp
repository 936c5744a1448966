// A small strict JSON parser for tests (RFC 8259 grammar; duplicate object
// keys are rejected too). Used by tests/trace (Chrome trace files) and
// tests/cli (the JSON lines of `hetla bench` and its --trace output).
#pragma once
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetla::testjson {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string string;  // decoded (\u escapes outside ASCII become '?')
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;  // in document order
  std::string raw;  // the value's text in the document

  bool is(Type t) const { return type == t; }
  /// Member `key` of an object, or nullptr.
  const Value* find(std::string_view key) const {
    for (const auto& [k, v] : object)
      if (k == key) return &v;
    return nullptr;
  }
  /// Member `key`; throws when absent.
  const Value& at(std::string_view key) const {
    if (const Value* v = find(key)) return *v;
    throw std::runtime_error("JSON object has no member '" + std::string(key) + "': " + raw.substr(0, 200));
  }
};

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  /// The whole text must be one value (surrounding whitespace allowed).
  Value document() {
    ws();
    Value v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const std::size_t from = i_ > 40 ? i_ - 40 : 0;
    throw std::runtime_error("bad JSON (" + what + ") at offset " + std::to_string(i_) + " near '" +
                             std::string(s_.substr(from, 80)) + "'");
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool digit() const { return std::isdigit(static_cast<unsigned char>(peek())) != 0; }

  Value value() {
    const std::size_t start = i_;
    Value v;
    const char c = peek();
    if (c == '{') {
      v.type = Value::Type::Object;
      ++i_;
      ws();
      if (peek() == '}') {
        ++i_;
      } else {
        while (true) {
          ws();
          std::string key = string();
          for (const auto& kv : v.object)
            if (kv.first == key) fail("duplicate key '" + key + "'");
          ws();
          expect(':');
          ws();
          v.object.emplace_back(std::move(key), value());
          ws();
          if (peek() == ',') {
            ++i_;
            continue;
          }
          expect('}');
          break;
        }
      }
    } else if (c == '[') {
      v.type = Value::Type::Array;
      ++i_;
      ws();
      if (peek() == ']') {
        ++i_;
      } else {
        while (true) {
          ws();
          v.array.push_back(value());
          ws();
          if (peek() == ',') {
            ++i_;
            continue;
          }
          expect(']');
          break;
        }
      }
    } else if (c == '"') {
      v.type = Value::Type::String;
      v.string = string();
    } else if (s_.substr(i_, 4) == "true") {
      v.type = Value::Type::Bool;
      v.boolean = true;
      i_ += 4;
    } else if (s_.substr(i_, 5) == "false") {
      v.type = Value::Type::Bool;
      i_ += 5;
    } else if (s_.substr(i_, 4) == "null") {
      i_ += 4;
    } else {
      v.type = Value::Type::Number;
      v.number = number();
    }
    v.raw = std::string(s_.substr(start, i_ - start));
    return v;
  }

  double number() {
    const std::size_t start = i_;
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (digit()) {
      while (digit()) ++i_;
    } else {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++i_;
      if (!digit()) fail("expected a digit after '.'");
      while (digit()) ++i_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (!digit()) fail("expected an exponent");
      while (digit()) ++i_;
    }
    return std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
  }

  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = 0;
          for (int k = 0; k < 4; ++k) {
            const char h = peek();
            if (!std::isxdigit(static_cast<unsigned char>(h))) fail("bad \\u escape");
            code = code * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                                         ? h - '0'
                                                         : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
            ++i_;
          }
          out += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default: fail("bad escape");
      }
    }
    return out;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

inline Value parse(std::string_view text) { return Parser(text).document(); }

}  // namespace hetla::testjson
