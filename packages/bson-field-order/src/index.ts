// The one entry of @pattern-sidecar/bson-field-order (README.md).
export {
  copyFieldOrder,
  fieldEntries,
  fieldNames,
  isIntegerKey,
  keepFieldOrder,
  orderedDocument,
  recordedOrder,
  removeField,
  setField,
} from "./field-order.js";
export { withFieldOrderOf } from "./decoded-order.js";
