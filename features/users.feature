@cap:user-management @cap:native-users
Feature: Listing and removing users
  listUsers pages through the users, optionally narrowed by a search query; DataHub lets
  anyone who is signed in list them (ListUsersResolver asks for no privilege). removeUser
  removes a user: it needs the platform privilege MANAGE_USERS_AND_GROUPS, which lets its
  holder update and delete users and groups; neither updating users and groups alone, nor
  managing their credentials, is enough. A removed user is gone: no longer listed, without
  a profile, unable to sign in, and every token and session of theirs is refused. DataHub
  lists users from a search index, so a new or removed user may take a moment to show in
  the list: the scenarios wait for it within the propagation window.

  @id:users-01 @must @smoke
  Scenario: Anyone signed in lists the users and finds one who signed up
    Given Carl has a password
    And Ann holds a personal access token
    When Ann lists the users, looking for Carl
    Then the list includes Carl

  @id:users-02 @must @core
  Scenario: Someone holding MANAGE_USERS_AND_GROUPS removes a user
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USERS_AND_GROUPS
    And Carl has a password
    When Ann removes Carl
    Then the answer says the user was removed
    And Carl is no longer listed and has no profile
    And Carl cannot sign in at the frontend's sign-in API with his password

  @id:users-03 @must @core
  Scenario Outline: Someone holding only <privilege> cannot remove a user
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    And Carl has a password
    When Ann removes Carl
    Then Ann is rejected as unauthorized

    Examples:
      | privilege               |
      | UPDATE_USERS_AND_GROUPS |
      | MANAGE_USER_CREDENTIALS |
      | MANAGE_POLICIES         |

  @id:users-04 @must @core
  Scenario: The token of a removed user is refused
    Given Carl holds a personal access token
    When the administrator removes Carl
    Then Carl's token is refused
