import EntitlementServer

EntitlementdCommand.main("entitlementd")
