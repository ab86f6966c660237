#include <iostream>
#include <string>
#include <vector>

#include "vyre/conform/runner.hpp"

int main(int argc, char** argv) {
  return vyre::conform::run_cli(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
