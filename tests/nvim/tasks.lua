-- Drives `weft lsp` from headless Neovim 0.11 on a note of tasks, with
-- positions in UTF-16 (the client offers no other), as task lines hold emoji:
--   nvim --headless --clean -l tasks.lua WEFT_BIN VAULT OUT_JSON
-- Waits for the diagnostics of a date that is no calendar day and a rule
-- that does not read, completes a recurring task through its code action
-- (applied and saved), then asks for the dates after a typed `📅 `, and
-- writes what it got to OUT_JSON for the Rust test to check.

local bin, root, out = arg[1], arg[2], arg[3]
local results = { errors = {} }

local function fail(message)
  table.insert(results.errors, message)
end

local function finish()
  vim.fn.writefile({ vim.json.encode(results) }, out)
  vim.cmd('qa!')
end

vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/Chores.md'))
local buf = vim.api.nvim_get_current_buf()
local capabilities = vim.lsp.protocol.make_client_capabilities()
capabilities.general.positionEncodings = { 'utf-16' }
local client_id = vim.lsp.start({
  name = 'weft',
  cmd = { bin, 'lsp' },
  root_dir = root,
  capabilities = capabilities,
})
if not client_id then
  fail('vim.lsp.start failed')
  return finish()
end
local client = vim.lsp.get_client_by_id(client_id)

local function request(method, params)
  local response = client:request_sync(method, params, 30000, buf)
  if not response then
    fail(method .. ': no answer')
    return nil
  end
  if response.err then
    fail(method .. ': ' .. vim.inspect(response.err))
    return nil
  end
  return response.result
end

local ready = vim.wait(60000, function()
  local status = client.initialized and request('weft/status', nil)
  return status ~= nil and status.ready == true
end, 100)
if not ready then
  fail('the vault never became ready')
  return finish()
end
results.encoding = client.offset_encoding

-- The diagnostics, as `line:character (UTF-16) code message`.
local function diagnostics()
  local shown = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local range = d.user_data.lsp.range
    table.insert(shown, range.start.line .. ':' .. range.start.character .. '-'
      .. range['end'].character .. ' ' .. d.code .. ' ' .. d.message)
  end
  table.sort(shown)
  return shown
end
vim.wait(60000, function()
  return #vim.diagnostic.get(buf) >= 2
end, 50)
results.diagnostics = diagnostics()

-- The cursor on the line holding `text`, as LSP params.
local function cursor_on(text)
  for row, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local start = line:find(text, 1, true)
    if start then
      vim.api.nvim_win_set_cursor(0, { row, start - 1 })
      return vim.lsp.util.make_position_params(0, client.offset_encoding)
    end
  end
  fail('not in the buffer: ' .. text)
  return nil
end

-- Complete the recurring task through its code action; apply and save.
local at = cursor_on('trash')
local actions = at and request('textDocument/codeAction', {
  textDocument = at.textDocument,
  range = { start = at.position, ['end'] = at.position },
  context = { diagnostics = {} },
}) or {}
results.actions = {}
for _, action in ipairs(actions) do
  table.insert(results.actions, action.title)
  if action.title == 'Complete task' then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
    vim.cmd('silent! write')
  end
end
results.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

-- Dates after a `📅 ` typed on a new task line (sent as an incremental
-- change).
local typed = '- [ ] water the 🪴 📅 '
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { typed })
-- The end of the line (a cursor in normal mode cannot stand past its last
-- character), in UTF-16 units.
local row = vim.api.nvim_buf_line_count(buf)
local completion = request('textDocument/completion', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = row - 1, character = vim.str_utfindex(typed, 'utf-16') },
})
results.dates = {}
for _, item in ipairs(completion and (completion.items or completion) or {}) do
  table.insert(results.dates, {
    label = item.label,
    detail = item.detail,
    newText = item.textEdit.newText,
    start = item.textEdit.range.start.character,
  })
end

finish()
