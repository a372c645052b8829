// ToJson prints what protobuf's JSON printer prints (compact, proto names, primitive
// fields at their defaults) except for 64-bit integers (bare numbers) and enum value 0
// (""): the first test holds it to protobuf on messages where the two must agree.
#include "sim/base/json.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/type.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/wrappers.pb.h"
#include "gtest/gtest.h"
#include "proto/report.pb.h"

namespace warpcheck::sim::base {
namespace {

std::string ProtobufJson(const google::protobuf::Message& m) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &json, options).ok());
  return json;
}

TEST(JsonTest, AgreesWithProtobufWhereBothApply) {
  Report r;
  // Strings that exercise every escape protobuf makes, doubles of every shape, nested and
  // repeated messages, empty repeated fields, one-entry maps (protobuf's map order is
  // unspecified, ours sorted).
  LayoutFacts* f = r.mutable_layout_facts();
  f->set_attr("#ttg.blocked<{a = [1, 2]}> \"q\" \\ \n\t\r\b\f \x01 \x7f caf\xc3\xa9 \xe2\x80\xa8 ->");
  f->add_shape(64);
  f->add_shape(-3);
  f->set_injective(true);
  (*f->mutable_free_variable_masks())["lane"] = 5;
  SimReport* s = r.mutable_sim();
  s->set_ok(false);
  SimFault* fault = s->add_faults();
  fault->set_kind("shared_race");
  fault->add_cta(1);
  fault->set_thread(4294967295u);
  s->add_expectations()->set_name("buffers_equal(in, out)");
  r.mutable_corpus()->set_files(3);
  // Layout bases are google.protobuf.ListValue: arrays of numbers.
  LinearLayoutProto* l = r.mutable_layout();
  auto* dim = l->add_in_dims();
  dim->set_name("register");
  auto* basis = dim->add_bases();
  basis->add_values()->set_number_value(4);
  basis->add_values()->set_number_value(0);
  dim->add_bases();
  l->add_out_dims()->set_name("dim0");
  for (const google::protobuf::Message* m :
       std::initializer_list<const google::protobuf::Message*>{&r, &r.layout_facts(),
                                                               &r.sim(), &r.corpus(),
                                                               &r.layout()}) {
    EXPECT_EQ(ToJson(*m), ProtobufJson(*m));
  }
  // Doubles: a field of a plain message (DoubleValue is a well-known type whose JSON is
  // the bare value, which ToJson does not special-case).
  for (double v : {0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 1e21, 1e-7, 123456789.125, 2e300}) {
    SignalReport sig;
    sig.set_seconds(v);
    const std::string ours = ToJson(sig), theirs = ProtobufJson(sig);
    auto seconds = [](const std::string& j) {
      size_t at = j.find("\"seconds\":");
      return j.substr(at, j.find(',', at) - at);
    };
    EXPECT_EQ(seconds(ours), seconds(theirs)) << v;
  }
}

TEST(JsonTest, SixtyFourBitIntegersAreNumbers) {
  google::protobuf::Int64Value i;
  i.set_value(-9007199254740993);
  // A wrapper prints as its bare value; protobuf would quote it: "-9007199254740993".
  EXPECT_EQ(ToJson(i), "-9007199254740993");
  google::protobuf::UInt64Value u;
  u.set_value(18446744073709551615u);
  EXPECT_EQ(ToJson(u), "18446744073709551615");
}

TEST(JsonTest, EnumZeroPrintsEmptyOtherValuesTheirName) {
  google::protobuf::Field field;
  EXPECT_THAT(ToJson(field), ::testing::HasSubstr(R"("kind":"")"));
  field.set_kind(google::protobuf::Field::TYPE_INT64);
  EXPECT_THAT(ToJson(field), ::testing::HasSubstr(R"("kind":"TYPE_INT64")"));
}

TEST(JsonTest, MapsAreSortedAndOptionalFieldsOnlyWhenSet) {
  LayoutFacts f;
  (*f.mutable_free_variable_masks())["warp"] = 1;
  (*f.mutable_free_variable_masks())["block"] = 2;
  (*f.mutable_free_variable_masks())["lane"] = 3;
  EXPECT_THAT(ToJson(f),
              ::testing::HasSubstr(R"("free_variable_masks":{"block":2,"lane":3,"warp":1})"));
  Swizzle2dReport sw;
  EXPECT_EQ(ToJson(sw), R"({"points":[]})");
  // Optional fields that are set come after the others, as protobuf prints them.
  sw.mutable_counterexample()->set_text("x");
  sw.set_solver_ms(2.5);
  const std::string ours = ToJson(sw);
  EXPECT_LT(ours.find("\"counterexample\""), ours.find("\"solver_ms\""));
  EXPECT_THAT(ours, ::testing::EndsWith(R"("solver_ms":2.5})"));
}

TEST(JsonTest, QuoteEscapesLikeProtobuf) {
  EXPECT_EQ(JsonQuote("a<b>c"), R"("a\u003cb\u003ec")");
  EXPECT_EQ(JsonQuote(std::string("\0", 1)), R"("\u0000")");
  EXPECT_EQ(JsonQuote("\xef\xbb\xbf"), R"("\ufeff")");
  EXPECT_EQ(JsonQuote("\xe2\x86\x92"), "\"\xe2\x86\x92\"");  // → is copied
}

}  // namespace
}  // namespace warpcheck::sim::base
