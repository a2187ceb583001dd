// The .npy reader and writer, including each malformed file a dataset folder could hold.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "tilelab/npy.hpp"

using namespace tilelab;
namespace fs = std::filesystem;

namespace {

fs::path tmp(const std::string& name) { return fs::temp_directory_path() / ("tilelab_test_" + name); }

// A .npy v1.0 file with an arbitrary header and payload, as a hostile or broken tool might write.
void write_raw(const fs::path& p, const std::string& header, size_t payload_bytes, char major = 1) {
  std::string h = header;
  while ((10 + h.size() + 1) % 64) h.push_back(' ');
  h.push_back('\n');
  std::ofstream out(p, std::ios::binary);
  out.write("\x93NUMPY", 6);
  out.put(major);
  out.put(0);
  out.put(char(h.size() & 0xff));
  out.put(char(h.size() >> 8));
  out << h;
  out << std::string(payload_bytes, '\0');
}

std::string error_of(const fs::path& p) {
  try {
    read_npy(p);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("write then read round-trips shape and bits") {
  Matrix m(3, 5);
  for (size_t i = 0; i < m.size(); ++i) m.data[i] = float(i) * 0.25f - 1.0f;
  const auto p = tmp("roundtrip.npy");
  write_npy(p, m);
  const Matrix r = read_npy(p);
  CHECK(r.rows == 3);
  CHECK(r.cols == 5);
  CHECK(r.data == m.data);
  // The header is padded so the data starts 64-byte aligned, as NumPy writes it.
  CHECK((fs::file_size(p) - m.size() * 4) % 64 == 0);
}

TEST_CASE("a 1 x 1 matrix and a 1 x K row read back") {
  Matrix a(1, 1), b(1, 7);
  a.data[0] = 42.0f;
  write_npy(tmp("one.npy"), a);
  write_npy(tmp("row.npy"), b);
  CHECK(read_npy(tmp("one.npy")).data[0] == 42.0f);
  CHECK(read_npy(tmp("row.npy")).cols == 7);
}

TEST_CASE("a file written by NumPy's own header style is accepted") {
  write_raw(tmp("numpy.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
  const Matrix m = read_npy(tmp("numpy.npy"));
  CHECK(m.rows == 2);
  CHECK(m.cols == 3);
}

TEST_CASE("malformed files are rejected with a message that names the problem") {
  SUBCASE("missing file") { CHECK(error_of(tmp("does_not_exist.npy")).find("cannot open") != std::string::npos); }
  SUBCASE("not npy at all") {
    std::ofstream(tmp("text.npy")) << "hello, world";
    CHECK(error_of(tmp("text.npy")).find("not a NumPy .npy file") != std::string::npos);
  }
  SUBCASE("truncated data") {
    write_raw(tmp("trunc.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", 60);
    const std::string e = error_of(tmp("trunc.npy"));
    CHECK(e.find("truncated") != std::string::npos);
    CHECK(e.find("64") != std::string::npos);  // the bytes it needs
  }
  SUBCASE("truncated header") {
    std::ofstream out(tmp("trunchead.npy"), std::ios::binary);
    out.write("\x93NUMPY\x01\x00\x76\x00{'descr'", 17);
    out.close();
    CHECK(error_of(tmp("trunchead.npy")).find("truncated npy header") != std::string::npos);
  }
  SUBCASE("wrong dtype") {
    write_raw(tmp("f8.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 32);
    const std::string e = error_of(tmp("f8.npy"));
    CHECK(e.find("wrong dtype '<f8'") != std::string::npos);
    CHECK(e.find("astype(np.float32)") != std::string::npos);
  }
  SUBCASE("big-endian float32") {
    write_raw(tmp("be.npy"), "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", 16);
    CHECK(error_of(tmp("be.npy")).find("wrong dtype") != std::string::npos);
  }
  SUBCASE("wrong rank") {
    write_raw(tmp("rank1.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16);
    CHECK(error_of(tmp("rank1.npy")).find("rank 1") != std::string::npos);
    write_raw(tmp("rank3.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }", 32);
    CHECK(error_of(tmp("rank3.npy")).find("rank 3") != std::string::npos);
  }
  SUBCASE("Fortran order") {
    write_raw(tmp("fortran.npy"), "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16);
    CHECK(error_of(tmp("fortran.npy")).find("Fortran") != std::string::npos);
  }
  SUBCASE("trailing bytes") {
    write_raw(tmp("long.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 20);
    CHECK(error_of(tmp("long.npy")).find("trailing bytes") != std::string::npos);
  }
  SUBCASE("unknown version") {
    write_raw(tmp("v9.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 16, 9);
    CHECK(error_of(tmp("v9.npy")).find("version 9") != std::string::npos);
  }
}
