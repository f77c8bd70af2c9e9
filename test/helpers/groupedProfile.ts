// biome-ignore-all lint/suspicious/noThenProperty: the contract names the field `then`

/**
 * The contract's example of a profile only expressions can say ("Any export: expressions and
 * spreadsheet layouts"): a grouped export's key made of name and variant, units in the
 * quantity, a parent row left out, a lot past its expiry offered as 0, anything but two item
 * types left out. Tests add the layout (`match`, `sheet`, `headerLine`, …) of their file.
 */
export const GROUPED_PROFILE = {
  kind: 'factory',
  columns: {
    sku: { expr: "row['Name'] + ' / ' + row['Variant Value']" },
    stock_quantity: { expr: "number(row['Units In Stock'].replace(' Unit(s)', ''))" },
  },
  when: [
    { if: "row['Variant Value'] == ''", then: 'skip' },
    { if: "row['Expiry'] != '' && date(row['Expiry'], 'MM/DD/YYYY') < today()", then: 'zero' },
    { if: "!(row['Item Type'] in ['Inventory', 'Goods'])", then: 'skip' },
  ],
} as const;
