// d2tsim: parse the command line, then run (see app/app.h).
#include "app/app.h"
#include "app/options.h"

int main(int argc, char** argv) {
  d2t::Options options;
  if (auto code = d2t::parseOptions(argc, argv, &options)) return *code;
  if (options.listScenes) return d2t::listScenes();
  if (!options.meshReport.empty()) return d2t::printMeshReport(options.meshReport);
  return d2t::runApp(options);
}
