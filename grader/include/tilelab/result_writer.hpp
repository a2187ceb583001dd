// How C++ writes the result object (grader/result_schema.toml): through a Writer of one of the
// schema's objects, which takes only that object's fields (the constants codegen generates in
// tilelab/result_schema.hpp) with a value of the field's type. A field the schema does not declare
// has no constant, so it cannot be written. The JSON is nlohmann's: its objects keep their keys
// sorted, so the order fields are written in changes nothing in the file.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

namespace tilelab::schema {

// A field's value types besides std::string, std::int64_t, double and bool (schema types str,
// int, number, bool): one of the schema's objects, a list or map of them, or free-form JSON.
template <class O> struct Object {};
template <class O> struct List {};
template <class O> struct Map {};
struct Json {};

template <class T, class Owner>
struct Field {
  const char* name;
};

// JSON has no NaN or Inf: a number field writes them as the strings "nan", "inf", "-inf".
inline nlohmann::json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

template <class Owner>
class Writer {
 public:
  explicit Writer(nlohmann::json& j) : j_(&j) {
    if (j_->is_null()) *j_ = nlohmann::json::object();
  }

  template <class T, class V>
  Writer& set(Field<T, Owner> f, V&& v) {
    using D = std::decay_t<V>;
    if constexpr (std::is_same_v<T, std::string>) {
      static_assert(std::is_constructible_v<std::string, V>, "a str field takes a string");
      (*j_)[f.name] = std::string(std::forward<V>(v));
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      static_assert(std::is_integral_v<D> && !std::is_same_v<D, bool>, "an int field takes an integer");
      (*j_)[f.name] = v;
    } else if constexpr (std::is_same_v<T, double>) {
      static_assert(std::is_floating_point_v<D>, "a number field takes a floating-point value");
      (*j_)[f.name] = number(double(v));
    } else if constexpr (std::is_same_v<T, bool>) {
      static_assert(std::is_same_v<D, bool>, "a bool field takes a bool");
      (*j_)[f.name] = v;
    } else {  // an object, list or map of the schema's, or free-form: JSON made by its own writer
      static_assert(std::is_same_v<D, nlohmann::json>, "an object field takes JSON");
      (*j_)[f.name] = std::forward<V>(v);
    }
    return *this;
  }
  // A nested object of the schema, created empty where it is absent.
  template <class O>
  Writer<O> at(Field<Object<O>, Owner> f) {
    return Writer<O>((*j_)[f.name]);
  }
  // A new last element of a list of the schema's objects.
  template <class O>
  Writer<O> append(Field<List<O>, Owner> f) {
    nlohmann::json& a = (*j_)[f.name];
    if (!a.is_array()) a = nlohmann::json::array();
    a.push_back(nlohmann::json::object());
    return Writer<O>(a.back());
  }
  // A list of the schema's objects, present and empty.
  template <class O>
  void empty_list(Field<List<O>, Owner> f) {
    (*j_)[f.name] = nlohmann::json::array();
  }
  // The entry `key` of a map of the schema's objects, created empty where it is absent.
  template <class O>
  Writer<O> entry(Field<Map<O>, Owner> f, const std::string& key) {
    return Writer<O>((*j_)[f.name][key]);
  }
  // The entry `key` of a map of the schema's objects, as that object's own writer made it.
  template <class O>
  Writer& set_entry(Field<Map<O>, Owner> f, const std::string& key, nlohmann::json v) {
    (*j_)[f.name][key] = std::move(v);
    return *this;
  }
  template <class T>
  bool has(Field<T, Owner> f) const {
    return j_->contains(f.name);
  }
  template <class T>
  const nlohmann::json& get(Field<T, Owner> f) const {
    return j_->at(f.name);
  }
  // Everything written so far is dropped.
  void clear() { *j_ = nlohmann::json::object(); }
  const nlohmann::json& json() const { return *j_; }

 private:
  nlohmann::json* j_;
};

}  // namespace tilelab::schema
