#include "sim/layout/layout_proto.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::layout {

LinearLayoutProto ToProto(const LinearLayout& layout) {
  LinearLayoutProto proto;
  for (const auto& [name, bases] : layout.bases()) {
    InDim* in = proto.add_in_dims();
    in->set_name(name);
    for (const LinearLayout::Basis& basis : bases) {
      google::protobuf::ListValue* list = in->add_bases();
      for (int32_t v : basis) list->add_values()->set_number_value(v);
    }
  }
  for (const auto& [name, size] : layout.out_dims()) {
    OutDim* out = proto.add_out_dims();
    out->set_name(name);
    out->set_size(size);
  }
  return proto;
}

absl::StatusOr<LinearLayout> FromProto(const LinearLayoutProto& proto) {
  LinearLayout::BasesT bases;
  for (const InDim& in : proto.in_dims()) {
    std::vector<LinearLayout::Basis> dim_bases;
    for (int i = 0; i < in.bases_size(); ++i) {
      LinearLayout::Basis basis;
      for (const google::protobuf::Value& v : in.bases(i).values()) {
        double d = v.number_value();
        if (v.kind_case() != google::protobuf::Value::kNumberValue || d != std::floor(d) ||
            d < 0 || d > 2147483647.0) {
          return absl::InvalidArgumentError(
              absl::StrCat("layout: in-dim '", in.name(), "' basis ", i,
                           ": entries must be non-negative integers"));
        }
        basis.push_back(static_cast<int32_t>(d));
      }
      dim_bases.push_back(std::move(basis));
    }
    bases.emplace_back(in.name(), std::move(dim_bases));
  }
  LinearLayout::OutDimsT outs;
  for (const OutDim& out : proto.out_dims()) outs.emplace_back(out.name(), out.size());
  return LinearLayout::Create(std::move(bases), std::move(outs),
                              /*require_surjective=*/false);
}

}  // namespace warpcheck::sim::layout
