import EdgeContract

/// Demo records consistent with samples/ (expected.json, README.md): the purchase orders on the
/// sample labels, the vendor card's vendor and tenant, the material and EAN-13 product, and the
/// linking code `AB-7KX-M4PQR` (sponsor prefix AB of samples/edge.json). Fixed values so tests and
/// demos can name them.
public enum DemoData {
    /// The tenant of samples/vendor.png, and the stand-in's default station tenant.
    public static let tenantID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
    /// The vendor of samples/vendor.png.
    public static let vendorID = "3f1c2a9e-8b7d-4c5e-9f10-2a3b4c5d6e7f"
    /// samples/po-code128.png: open, three lines.
    public static let openOrder = "PO-2026-00042"
    /// samples/po-code39.png: partially received.
    public static let partialOrder = "PO-2026-00043"
    /// samples/photo-like.jpg: already received in full, so a GRN for it is a 409 conflict.
    public static let receivedOrder = "PO-2026-00077"
    /// samples/material.png.
    public static let materialCode = "MAT-ST-4471"
    /// samples/product-ean13.png.
    public static let productGTIN = "4006381333931"
    /// samples/linking-code.png (AB-7KX-M4PQR): Study Start still required.
    public static let linkingCode = "AB7KXM4PQR"
    /// A second code for the same patient: re-enrollment whose earlier approval holds (ENR-11,
    /// ENR-14), so study_start_required is false.
    public static let reenrollmentCode = "AB9TRW7KXM"
    /// Sponsor CD's code, another patient.
    public static let otherSponsorCode = "CD3HJ6K8W9"
    /// Expired: refused with INVALID_LINKING_CODE like an unknown code.
    public static let expiredCode = "AB4HXPQR7K"
    /// Sponsor AB, another patient: what a re-enrollment with the wrong patient's code sends (ENR-14).
    public static let otherPatientCode = "ABH3K7M9PQ"

    static func seed(_ state: inout StandinState, now: String) {
        let ordered = "2026-11-18T16:02:11+00:00"
        state.purchaseOrders[openOrder] = PurchaseOrder(
            poNumber: openOrder, vendorID: vendorID, status: .open,
            lines: [
                PurchaseOrderLine(lineNo: 1, item: materialCode, description: "Steel bracket 40x40 mm", ordered: 120, received: 0, unit: "EA"),
                PurchaseOrderLine(lineNo: 2, item: productGTIN, description: "Fineliner pen, black, 0.4 mm", ordered: 50, received: 0, unit: "EA"),
                PurchaseOrderLine(lineNo: 3, item: "MAT-CB-0210", description: "Copper cable 2.5 mm2", ordered: 250.5, received: 0, unit: "m"),
            ],
            updatedAt: ordered)
        state.purchaseOrders[partialOrder] = PurchaseOrder(
            poNumber: partialOrder, vendorID: vendorID, status: .partiallyReceived,
            lines: [PurchaseOrderLine(lineNo: 1, item: materialCode, description: "Steel bracket 40x40 mm", ordered: 60, received: 20, unit: "EA")],
            updatedAt: "2026-11-12T11:20:00+00:00")
        state.purchaseOrders[receivedOrder] = PurchaseOrder(
            poNumber: receivedOrder, vendorID: vendorID, status: .received,
            lines: [PurchaseOrderLine(lineNo: 1, item: "MAT-PL-1180", description: "Pallet wrap film 500 mm", ordered: 12, received: 12, unit: "roll")],
            updatedAt: "2026-11-19T10:41:57+00:00")

        let recent = [
            RecentOrder(poNumber: openOrder, orderedAt: ordered, quantity: 120, unit: "EA", status: .open),
            RecentOrder(poNumber: partialOrder, orderedAt: "2026-11-02T08:30:00+00:00", quantity: 60, unit: "EA", status: .partiallyReceived),
        ]
        state.materials[materialCode] = MaterialInfo(
            code: materialCode, description: "Steel bracket 40x40 mm", stockLevel: 340, unit: "EA", recentOrders: recent,
            priceTrend: PriceTrend(currency: "EUR", direction: .rising, points: [
                PricePoint(date: "2026-08-01", unitPrice: 1.92), PricePoint(date: "2026-09-01", unitPrice: 1.98),
                PricePoint(date: "2026-10-01", unitPrice: 2.05),
            ]))
        state.products[productGTIN] = ProductInfo(gtin: productGTIN, name: "Fineliner pen, black, 0.4 mm")
        state.vendors[vendorID] = VendorInfo(
            vendorID: vendorID, tenantID: tenantID, name: "Nordhafen Industrial Supply GmbH",
            contact: VendorContact(name: "Jana Weber", phone: "+49 40 5550 1234", email: "j.weber@nordhafen-supply.example"),
            rating: 4.6, recentOrders: recent)

        let sponsorAB = SponsorDisplayConfig(
            name: "Study Sponsor AB", phone: "+1 555 0100", email: "coordinator@sponsor-ab.example",
            colors: SponsorColors(primary: "#0B5FFF", secondary: "#F2F6FF"))
        let sponsorCD = SponsorDisplayConfig(
            name: "Study Sponsor CD", phone: "+1 555 0199", email: "study@sponsor-cd.example",
            colors: SponsorColors(primary: "#1E7B4D", secondary: "#EAF7EF"))
        // Backend URLs as in samples/edge.json: masked, naming neither sponsor nor site (ENR-4).
        let enrollments = [
            EnrollmentRecord(
                id: "enr-ab-0001", patientID: "pat-7d41c2e0", linkingCode: linkingCode, sponsorURL: "https://s1.portal.invalid/api",
                sponsor: sponsorAB, studyStartRequired: true, status: .studyStartPending, updatedAt: now, expired: false),
            EnrollmentRecord(
                id: "enr-ab-0002", patientID: "pat-7d41c2e0", linkingCode: reenrollmentCode, sponsorURL: "https://s1.portal.invalid/api",
                sponsor: sponsorAB, studyStartRequired: false, status: .enrolled, updatedAt: now, expired: false),
            EnrollmentRecord(
                id: "enr-cd-0001", patientID: "pat-3b9e51aa", linkingCode: otherSponsorCode, sponsorURL: "https://s2.portal.invalid/api",
                sponsor: sponsorCD, studyStartRequired: true, status: .studyStartPending, updatedAt: now, expired: false),
            EnrollmentRecord(
                id: "enr-ab-0003", patientID: "pat-90ac11f3", linkingCode: expiredCode, sponsorURL: "https://s1.portal.invalid/api",
                sponsor: sponsorAB, studyStartRequired: true, status: .studyStartPending, updatedAt: now, expired: true),
            EnrollmentRecord(
                id: "enr-ab-0004", patientID: "pat-c41e88d2", linkingCode: otherPatientCode, sponsorURL: "https://s1.portal.invalid/api",
                sponsor: sponsorAB, studyStartRequired: true, status: .studyStartPending, updatedAt: now, expired: false),
        ]
        for enrollment in enrollments {
            state.enrollments[enrollment.id] = enrollment
            state.linkingCodes[enrollment.linkingCode] = enrollment.id
        }
    }
}
