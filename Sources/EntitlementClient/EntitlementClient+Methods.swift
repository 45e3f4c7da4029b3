public import RPCCore
import StandardServices

extension EntitlementClient {
    /// The method descriptor of every RPC the typed calls make, in one place.
    public enum Methods {
        /// `entitlements.v1.EntitlementService`: what apps call with a public key.
        public static let entitlementService = "entitlements.v1.EntitlementService"
        /// `entitlements.v1.AdminService`: what operators call with a secret key.
        public static let adminService = "entitlements.v1.AdminService"

        public static let healthCheck = MethodDescriptor(service: HealthService.serviceName, method: "Check")

        public static let identify = MethodDescriptor(service: entitlementService, method: "Identify")
        public static let syncStatus = MethodDescriptor(service: entitlementService, method: "SyncStatus")
        public static let streamStatus = MethodDescriptor(service: entitlementService, method: "StreamStatus")
        public static let purchase = MethodDescriptor(service: entitlementService, method: "Purchase")
        public static let restore = MethodDescriptor(service: entitlementService, method: "Restore")
        public static let setAttributes = MethodDescriptor(service: entitlementService, method: "SetAttributes")
        public static let getOfferEligibility = MethodDescriptor(service: entitlementService, method: "GetOfferEligibility")
        public static let signOffer = MethodDescriptor(service: entitlementService, method: "SignOffer")

        public static let grantEntitlement = MethodDescriptor(service: adminService, method: "GrantEntitlement")
        public static let revokeGrant = MethodDescriptor(service: adminService, method: "RevokeGrant")
        public static let getCustomer = MethodDescriptor(service: adminService, method: "GetCustomer")
        public static let setCustomerAttributes = MethodDescriptor(service: adminService, method: "SetCustomerAttributes")
        public static let exportCustomer = MethodDescriptor(service: adminService, method: "ExportCustomer")
        public static let listAuditEvents = MethodDescriptor(service: adminService, method: "ListAuditEvents")
        public static let deleteCustomer = MethodDescriptor(service: adminService, method: "DeleteCustomer")
        public static let listCustomerEvents = MethodDescriptor(service: adminService, method: "ListCustomerEvents")
        public static let refreshStorePurchase = MethodDescriptor(service: adminService, method: "RefreshStorePurchase")
        public static let getRedemptionCode = MethodDescriptor(service: adminService, method: "GetRedemptionCode")
        public static let sendTestWebhook = MethodDescriptor(service: adminService, method: "SendTestWebhook")
        public static let listWebhookDeliveries = MethodDescriptor(service: adminService, method: "ListWebhookDeliveries")
        public static let redeliverWebhooks = MethodDescriptor(service: adminService, method: "RedeliverWebhooks")
        public static let listCustomers = MethodDescriptor(service: adminService, method: "ListCustomers")
        public static let countCustomers = MethodDescriptor(service: adminService, method: "CountCustomers")
        public static let describeTrust = MethodDescriptor(service: adminService, method: "DescribeTrust")
        public static let getMetrics = MethodDescriptor(service: adminService, method: "GetMetrics")
        public static let listMetricRows = MethodDescriptor(service: adminService, method: "ListMetricRows")
        public static let findCustomers = MethodDescriptor(service: adminService, method: "FindCustomers")
        public static let reconcileAppStore = MethodDescriptor(service: adminService, method: "ReconcileAppStore")
        public static let lookUpOrder = MethodDescriptor(service: adminService, method: "LookUpOrder")
        public static let extendSubscription = MethodDescriptor(service: adminService, method: "ExtendSubscription")
        public static let sendConsumptionInfo = MethodDescriptor(service: adminService, method: "SendConsumptionInfo")
        public static let requestTestNotification = MethodDescriptor(service: adminService, method: "RequestTestNotification")
        public static let getTestNotificationStatus = MethodDescriptor(service: adminService, method: "GetTestNotificationStatus")
        public static let checkAppStoreSetup = MethodDescriptor(service: adminService, method: "CheckAppStoreSetup")
    }
}
