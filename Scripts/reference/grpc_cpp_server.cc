// The reference peer for Scripts/benchmark: grpc C++ (Debian's libgrpc++, callback API) answering
// entitlements.v1.EntitlementService/SyncStatus from an in-memory map (no authentication, no logs, no storage) and
// grpc.health.v1.Health/Check, so our figures can be read as ratios against the fastest mainstream gRPC server
// doing less than we do. StreamStatus (for Scripts/benchmark-devices) sends the customer's status as a SNAPSHOT and
// holds the stream open until the client cancels, as a device's stream waits for changes.
//
// Usage: grpc_cpp_server PORT CUSTOMERS [CERTIFICATE PRIVATE_KEY]
//   Customers are "bench-user-<n>" for n in [0, CUSTOMERS), each holding "pro" (APP_STORE,
//   com.example.pro.monthly, expiring in 30 days, renewing), the shape entitlementd-bench seeds.
//   With the two PEM files it serves TLS (ALPN h2), else h2c.
// Prints "listening on 127.0.0.1:PORT" once it serves; runs until SIGTERM or SIGINT.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>

#include <grpcpp/grpcpp.h>

#include "entitlements/v1/entitlement_service.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace {

using entitlements::v1::CustomerStatus;

class Entitlements final : public entitlements::v1::EntitlementService::CallbackService {
 public:
  explicit Entitlements(std::unordered_map<std::string, CustomerStatus> customers)
      : customers_(std::move(customers)) {}

  grpc::ServerUnaryReactor* SyncStatus(grpc::CallbackServerContext* context,
                                       const entitlements::v1::SyncStatusRequest* request,
                                       entitlements::v1::SyncStatusResponse* response) override {
    auto* reactor = context->DefaultReactor();
    auto found = customers_.find(request->app_user_id());
    if (found == customers_.end()) {
      reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such customer"));
      return reactor;
    }
    *response->mutable_customer() = found->second;
    auto* now = response->mutable_customer()->mutable_server_time();
    now->set_seconds(std::time(nullptr));
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerWriteReactor<entitlements::v1::StatusEvent>* StreamStatus(
      grpc::CallbackServerContext*, const entitlements::v1::StreamStatusRequest* request) override {
    auto found = customers_.find(request->app_user_id());
    return new Watch(found == customers_.end() ? nullptr : &found->second);
  }

 private:
  class Watch final : public grpc::ServerWriteReactor<entitlements::v1::StatusEvent> {
   public:
    explicit Watch(const CustomerStatus* status) {
      if (status == nullptr) {
        Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such customer"));
        return;
      }
      event_.set_kind(entitlements::v1::StatusEvent::SNAPSHOT);
      *event_.mutable_customer() = *status;
      StartWrite(&event_);
    }
    // Written: nothing is kept for the stream beyond grpc's own state while it waits.
    void OnWriteDone(bool) override { event_.Clear(); }
    void OnCancel() override { Finish(grpc::Status::CANCELLED); }
    void OnDone() override { delete this; }

   private:
    entitlements::v1::StatusEvent event_;
  };

  const std::unordered_map<std::string, CustomerStatus> customers_;
};

class Health final : public grpc::health::v1::Health::CallbackService {
 public:
  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest*,
                                  grpc::health::v1::HealthCheckResponse* response) override {
    response->set_status(grpc::health::v1::HealthCheckResponse::SERVING);
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

std::unique_ptr<grpc::Server> server;

std::string contents(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::fprintf(stderr, "usage: %s PORT CUSTOMERS [CERTIFICATE PRIVATE_KEY]\n", argv[0]);
    return 2;
  }
  const std::string address = std::string("127.0.0.1:") + argv[1];
  const long count = std::strtol(argv[2], nullptr, 10);
  const std::int64_t expires = std::time(nullptr) + 30 * 86400;
  std::unordered_map<std::string, CustomerStatus> customers;
  customers.reserve(count);
  for (long n = 0; n < count; ++n) {
    CustomerStatus status;
    status.set_app_user_id("bench-user-" + std::to_string(n));
    status.set_version(2);
    auto* subscription = status.mutable_status();
    subscription->set_state(entitlements::v1::SubscriptionStatus::ACTIVE);
    auto* entitlement = subscription->add_entitlements();
    entitlement->set_id("pro");
    entitlement->set_source(entitlements::v1::APP_STORE);
    entitlement->set_product_id("com.example.pro.monthly");
    entitlement->mutable_expires_at()->set_seconds(expires);
    entitlement->set_will_renew(true);
    customers.emplace(status.app_user_id(), std::move(status));
  }
  Entitlements entitlements(std::move(customers));
  Health health;
  grpc::ServerBuilder builder;
  int port = 0;
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (argc == 5) {
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back({contents(argv[4]), contents(argv[3])});
    credentials = grpc::SslServerCredentials(options);
  }
  builder.AddListeningPort(address, credentials, &port);
  builder.RegisterService(&entitlements);
  builder.RegisterService(&health);
  server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "cannot listen on %s\n", address.c_str());
    return 1;
  }
  std::printf("listening on %s\n", address.c_str());
  std::fflush(stdout);
  std::signal(SIGTERM, [](int) { std::_Exit(0); });
  std::signal(SIGINT, [](int) { std::_Exit(0); });
  server->Wait();
  return 0;
}
