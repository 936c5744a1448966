// Vendor calls with an invalid argument fail the test that makes them
// (vendor_xerbla.cc), except inside a test that provokes one on purpose.
#pragma once

namespace hetla::test {

/// While one exists, the vendor's invalid-argument reports are counted here
/// instead of failing the test.
class ExpectedVendorRejections {
 public:
  ExpectedVendorRejections();
  ~ExpectedVendorRejections();
  ExpectedVendorRejections(const ExpectedVendorRejections&) = delete;
  ExpectedVendorRejections& operator=(const ExpectedVendorRejections&) = delete;
  /// Reports since this object was made.
  int count() const;
  /// The position (LAPACK's numbering) of the last argument reported.
  int last_position() const;

 private:
  int start_;
};

}  // namespace hetla::test
