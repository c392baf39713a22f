// StepLog: the per-step clocks of the fixed stage profile as the --bench CSV columns.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/output/step_log.h"

namespace d2t {

// Columns stay in the step's order (CPU clocks, then GPU clocks) whenever a stage first
// runs, a stage that did not run in a step reads 0 there, and each CSV value sits under
// its own column.
TEST(StepLog, ColumnsFollowTheStepOrderAndHoldTheirOwnClock) {
  StepLog log;
  Profile p;
  p.add(Stage::Forces, 1.0);
  p.add(Stage::Correct, 2.0);
  p.addGpu(Stage::Solve, 3.0);
  log.record(p, 10.0);
  p.clear();
  p.add(Stage::Rows, 4.0);  // (first seen in the second step, between forces and correct)
  p.add(Stage::Forces, 5.0);
  log.record(p, 20.0);
  const std::vector<StageClock> want = {
      {Stage::Forces, false}, {Stage::Rows, false}, {Stage::Correct, false}, {Stage::Solve, true}};
  EXPECT_EQ(log.clocks(), want);
  EXPECT_EQ(log.recentStage({Stage::Rows, false}, 2), (std::vector<float>{0.0f, 4.0f}));
  EXPECT_EQ(log.recentStage({Stage::Solve, true}, 2), (std::vector<float>{3.0f, 0.0f}));
  EXPECT_DOUBLE_EQ(log.medianStage({Stage::Forces, false}), 3.0);
  EXPECT_DOUBLE_EQ(log.medianStage({Stage::Solve, false}), 0.0);  // (never ran on the CPU)
  EXPECT_TRUE(log.recentStage({Stage::Count, false}, 2).empty());
  const std::string path = (std::filesystem::temp_directory_path() / "d2t_step_log_test.csv").string();
  log.writeCsv(path, 0.005);
  std::ifstream f(path);
  std::string header, first, second;
  std::getline(f, header);
  std::getline(f, first);
  std::getline(f, second);
  EXPECT_EQ(header, "step,t,step_ms,forces_ms,rows_ms,correct_ms,gpu_solve_ms,contacts,cg_iterations,cg_residual");
  EXPECT_EQ(first, "1,0.005,10,1,0,2,3,0,0,0");
  EXPECT_EQ(second, "2,0.01,20,5,4,0,0,0,0,0");
  std::filesystem::remove(path);
}

}  // namespace d2t
