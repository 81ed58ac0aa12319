/// Which of zbar's scan lines a scan uses (ZBAR_CFG_Y_DENSITY for rows, ZBAR_CFG_X_DENSITY for
/// columns). A 1D code with upright bars is read along rows alone, at half the cost of both.
enum ScanLines: Sendable, Equatable {
    case both
    case rows
    case columns
}
