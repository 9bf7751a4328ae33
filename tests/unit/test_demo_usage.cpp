// The demos' usage: it names the program as it was called, and offers no option the lesson
// refuses (DemoSpec::takes_block). CPU only: --help and bad options return before any GPU work.
#include <array>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "course/demo.hpp"
#include "course/testing.hpp"

namespace {

struct Captured {
  int code = 0;
  std::string out;
  std::string err;
};

// Runs run_demo() on the given arguments (argv[0] first) with std::cout and std::cerr captured.
Captured run(const course::DemoSpec& spec, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::ostringstream out;
  std::ostringstream err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  Captured result;
  result.code = course::run_demo(static_cast<int>(args.size()), argv.data(), spec);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

course::DemoSpec spec(bool takes_block) {
  course::DemoSpec demo;
  demo.lesson = "02_transpose";
  demo.description = "Lesson 02: a test of the usage.";
  demo.size_help = "ROWSxCOLS";
  demo.variant_names = {"naive", "tiled"};
  demo.takes_block = takes_block;
  demo.run = [](const course::DemoOptions&) { return std::vector<course::LadderReport>{}; };
  return demo;
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("demo usage names the binary as it was called") {
    const auto help =
        run(spec(true), {"/some/build/lessons/02_transpose/lesson02_demo_student", "--help"});
    CHECK(help.code == 0);
    CHECK(help.out.find("lesson02_demo_student") != std::string::npos);
    CHECK(help.out.find("demo_02_transpose") == std::string::npos);
    CHECK(help.out.find("/some/build") == std::string::npos);

    const auto bad = run(spec(true), {"./lesson02_demo_solution", "--repeat", "0"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("usage: lesson02_demo_solution [OPTIONS]") != std::string::npos);

    CHECK(course::demo_program_name(nullptr, "02_transpose") == "lesson02_demo");
    CHECK(course::demo_program_name("", "11_sorting") == "lesson11_demo");
    CHECK(course::demo_program_name("lesson05_demo_student", "05_reduction") ==
          "lesson05_demo_student");
  }

  TEST_CASE("a lesson whose block shapes are fixed neither offers nor accepts --block") {
    const auto with_block = run(spec(true), {"lesson02_demo_student", "--help"});
    CHECK(with_block.out.find("--block") != std::string::npos);

    const auto help = run(spec(false), {"lesson02_demo_student", "--help"});
    CHECK(help.code == 0);
    CHECK(help.out.find("--block") == std::string::npos);

    const auto refused = run(spec(false), {"lesson02_demo_student", "--block", "128"});
    CHECK(refused.code == 2);
    CHECK(refused.err.find("--block") != std::string::npos);
    CHECK(refused.err.find("usage: lesson02_demo_student") != std::string::npos);
  }

  TEST_CASE("a demo made from its lesson's rung tables: --variant takes their names") {
    struct Rung {
      std::string_view name;
      int number;
    };
    constexpr std::array<Rung, 2> kernels{{{"global", 0}, {"shared", 1}}};
    constexpr std::array<Rung, 1> memories{{{"pinned", 2}}};
    course::DemoSpec demo("06_box_blur", "Lesson 06: a test of the usage.", "N", kernels);
    CHECK(demo.lesson == "06_box_blur");
    CHECK(demo.description == "Lesson 06: a test of the usage.");
    CHECK(demo.size_help == "N");
    CHECK(demo.variant_names == std::vector<std::string>{"global", "shared"});
    demo.add_variants(memories);
    CHECK(demo.variant_names == std::vector<std::string>{"global", "shared", "pinned"});
    CHECK(demo.takes_block);  // as a spec made field by field
    demo.run = [](const course::DemoOptions&) { return std::vector<course::LadderReport>{}; };

    const auto named = run(demo, {"lesson06_demo_student", "--variant", "pinned", "--help"});
    CHECK(named.code == 0);
    CHECK(named.out.find("Lesson 06: a test of the usage.") != std::string::npos);
    const auto unknown = run(demo, {"lesson06_demo_student", "--variant", "mapped"});
    CHECK(unknown.code == 2);
    CHECK(unknown.err.find("mapped") != std::string::npos);
  }

  TEST_CASE(
      "--block's help says what the lesson accepts, 0 is refused, --repeat shows its default") {
    auto demo = spec(true);
    demo.block_help = "a power of two in [64, 1024], default 256";
    const auto help = run(demo, {"lesson05_demo_student", "--help"});
    CHECK(help.out.find("threads per block: a power of two in [64, 1024], default 256") !=
          std::string::npos);
    CHECK(help.out.find("[0 - 1024]") == std::string::npos);  // 0 is not "the default"
    CHECK(help.out.find("=20") != std::string::npos);         // --repeat's default

    const auto zero = run(demo, {"lesson05_demo_student", "--block", "0"});
    CHECK(zero.code == 2);
    CHECK(zero.err.find("--block") != std::string::npos);
  }
}
